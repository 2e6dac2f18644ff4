// The zsh script: one function per command, `_arguments` for flags and arguments and
// `_describe` for subcommands, so zsh shows every description next to its candidate.
import type { Command } from 'commander';
import { commandsOf, describeTree, GENERATED_NOTICE, type ArgSpec, type CommandSpec, type FlagSpec } from './tree.js';

export function zshCompletion(program: Command): string {
  const root = describeTree(program);
  const functions = [...commandsOf(root)].map((c) => (c.subcommands.length > 0 ? parentFunction(c) : leafFunction(c)));
  return `#compdef svc
# zsh completion for svc, ${GENERATED_NOTICE}.
# Save it as _svc in a directory of $fpath (\`svc completion zsh > "\${fpath[1]}/_svc"\`),
# or load it with \`source <(svc completion zsh)\` after compinit.

# Live values (profiles, request IDs…) from \`svc __complete\`, which reads this machine only;
# a line may carry a description after a tab (a Grant's company), shown beside the value.
_svc_live() {
  local -a lines values descriptions
  local line
  lines=(\${(f)"$(svc __complete -- "$1" "$2" 2>/dev/null)"})
  for line in $lines; do
    values+=("\${line%%$'\\t'*}")
    descriptions+=("\${line/$'\\t'/  -- }")
  done
  compadd -l -d descriptions -a values
}

${functions.join('\n\n')}

# compinit autoloads this file as the body of _svc: define the functions, then complete.
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

function functionName(c: CommandSpec): string {
  return ['_svc', ...c.path].join('__');
}

function parentFunction(c: CommandSpec): string {
  const title = ['svc', ...c.path].join(' ');
  const entries = c.subcommands.map((s) => `        ${quote(`${s.name.replaceAll(':', '\\:')}:${s.description}`)}`);
  const branches = c.subcommands.map((s) => `        ${s.name}) ${functionName(s)} && ret=0 ;;`);
  return `${functionName(c)}() {
  local curcontext=$curcontext state state_descr line ret=1
  local -A opt_args
  _arguments -C \\
${c.flags.map((f) => `    ${flagSpec(f, c.path.join(' '))} \\`).join('\n')}
    ': :->command' \\
    '*:: :->argument' && ret=0
  case $state in
    command)
      local -a commands
      commands=(
${entries.join('\n')}
      )
      _describe -t commands ${quote(`${title} command`)} commands && ret=0
      ;;
    argument)
      curcontext=\${curcontext%:*:*}:${['svc', ...c.path].join('-')}-$words[1]:
      case $words[1] in
${branches.join('\n')}
      esac
      ;;
  esac
  return ret
}`;
}

function leafFunction(c: CommandSpec): string {
  const where = c.path.join(' ');
  const specs = [...c.flags.map((f) => flagSpec(f, where)), ...c.args.map((a) => argSpec(a, where))];
  return `${functionName(c)}() {
  _arguments \\
${specs.map((s) => `    ${s}`).join(' \\\n')}
}`;
}

function flagSpec(f: FlagSpec, where: string): string {
  const description = `[${f.description.replace(/[\\[\]]/g, '\\$&')}]`;
  const value = f.value ? `:${message(f.value.name)}:${f.value.live ? live(where, f.name) : f.value.choices ? listAction(f.value.choices) : action(undefined, f.value.files)}` : '';
  // `--name=` and `-n+` take the value in the same word or the next, as commander does.
  const names = [f.short, f.name].filter((n) => n !== undefined).map((n) => (f.value ? `${n}${n.startsWith('--') ? '=' : '+'}` : n));
  const repeat = f.repeatable ? '*' : '';
  if (names.length === 1) return quote(`${repeat}${names[0]}${description}${value}`);
  // A flag and its short form exclude each other unless the flag may repeat.
  const exclusion = repeat || `(${[f.short, f.name].join(' ')})`;
  return `${quote(exclusion)}{${names.join(',')}}${quote(`${description}${value}`)}`;
}

function argSpec(a: ArgSpec, where: string): string {
  const position = a.variadic ? '*:' : a.required ? ':' : '::';
  return quote(`${position}${message(a.name)}:${a.live ? live(where, a.name) : action(a.choices, false)}`);
}

/** An action calling _svc_live with the command's path and the slot. */
function live(where: string, slot: string): string {
  return `{_svc_live ${JSON.stringify(where)} ${slot}}`;
}

function message(text: string): string {
  return text.replace(/[\\:]/g, '\\$&');
}

/** A flag's choices, also as a comma-separated list (`--status PENDING,AC`): _sequence completes each item. */
function listAction(choices: readonly string[]): string {
  return `_sequence compadd - ${choices.map((c) => c.replace(/[\\\s()]/g, '\\$&')).join(' ')}`;
}

/** `(a b)` offers the choices, `_files` file names, and a space nothing but the message. */
function action(choices: readonly string[] | undefined, files: boolean): string {
  if (choices) return `(${choices.map((c) => c.replace(/[\\\s()]/g, '\\$&')).join(' ')})`;
  return files ? '_files' : ' ';
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
