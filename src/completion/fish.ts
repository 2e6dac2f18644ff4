// The fish script: `complete` lines guarded by `__svc_at PATH`, which is true when the words
// before the cursor reach exactly that command. Unlike __fish_seen_subcommand_from it knows
// the tree, so `list` under `config` is not taken for `list` under `webhook`, and the value
// of `--profile NAME` is not taken for a subcommand.
import type { Command } from 'commander';
import { commandsOf, describeTree, GENERATED_NOTICE, type CommandSpec, type FlagSpec } from './tree.js';

export function fishCompletion(program: Command): string {
  const root = describeTree(program);
  const commands = [...commandsOf(root)];
  // The root's flags hold everywhere, so they are completed without a condition and each
  // command adds only the flags the root does not have.
  const rootFlags = new Set(root.flags.map((f) => f.name));
  const ownFlags = (c: CommandSpec) => (c === root ? [] : c.flags.filter((f) => !rootFlags.has(f.name)));
  const lines = commands.flatMap((c) => {
    const at = `-n ${quote(['__svc_at', ...c.path].join(' '))}`;
    const own = ownFlags(c).map((f) => flagLine(f, at, c.path.join(' ')));
    const subcommands = c.subcommands.map((s) => `complete -c svc ${at} -a ${quote(s.name)} -d ${quote(s.description)}`);
    const choices = c.subcommands.length > 0 ? [] : c.args.flatMap((a) => a.choices ?? []);
    const liveArgs = c.subcommands.length > 0 ? [] : c.args.filter((a) => a.live);
    const args = [
      ...(choices.length > 0 ? [`complete -c svc ${at} -a ${quote(choices.join(' '))}`] : []),
      ...liveArgs.map((a) => `complete -c svc ${at} -a ${quote(liveCall(c.path.join(' '), a.name))}`),
    ];
    return [...subcommands, ...own, ...args];
  });
  return `# fish completion for svc, ${GENERATED_NOTICE}.
# Save it as ~/.config/fish/completions/svc.fish, or load it with
# \`svc completion fish | source\`.

function __svc_subcommands --description 'the subcommands of an svc command path'
    switch "$argv"
${switchBranches(commands, (c) => c.subcommands.map((s) => quote(s.name)).join(' '))}
    end
end

function __svc_value_flags --description 'the flags of an svc command path that take a value'
    printf '%s\\n' ${valueFlags(root.flags)}
    switch "$argv"
${switchBranches(commands, (c) => valueFlags(ownFlags(c)))}
    end
end

function __svc_path --description 'the svc command path the words before the cursor reach'
    set -l words (commandline -opc)
    set -e words[1]
    set -l path
    set -l expect_value 0
    for word in $words
        if test $expect_value = 1
            set expect_value 0
        else if string match -q -- '--*=*' $word
            continue
        else if string match -q -- '-*' $word
            contains -- $word (__svc_value_flags $path); and set expect_value 1
        else if contains -- $word (__svc_subcommands $path)
            set -a path $word
        end
    end
    string join ' ' -- $path
end

# True when the words before the cursor reach the command \`svc $argv\`.
function __svc_at
    set -l path (__svc_path)
    test "$path" = "$argv"
end

complete -c svc -f
${root.flags.map((f) => flagLine(f, '', '')).join('\n')}
${lines.join('\n')}
`;
}

/** Live values (profiles, request IDs…) from `svc __complete`, which reads this machine only. */
function liveCall(where: string, slot: string): string {
  return `(svc __complete -- ${JSON.stringify(where)} ${slot} 2>/dev/null)`;
}

function flagLine(f: FlagSpec, condition: string, where: string): string {
  const names = f.name.startsWith('--') ? [f.short ? `-s ${f.short.slice(1)}` : '', `-l ${f.name.slice(2)}`] : [`-s ${f.name.slice(1)}`];
  const value = !f.value
    ? ''
    : f.value.choices
      ? `-x -a ${quote(`(__fish_complete_list , 'string split " " "${f.value.choices.join(' ')}"')`)}`
      : f.value.files
        ? '-r -F'
        : f.value.live
          ? `-x -a ${quote(liveCall(where, f.name))}`
          : '-x';
  const line = (...parts: string[]) => ['complete -c svc', condition, ...names, ...parts].filter((part) => part !== '').join(' ');
  // Values on a line of their own: on the flag's line, fish would print its description beside every value.
  if (value.includes(' -a ')) return `${line(value.slice(0, value.indexOf(' -a ')), `-d ${quote(f.description)}`)}\n${line(value)}`;
  return line(value, `-d ${quote(f.description)}`);
}

function valueFlags(flags: readonly FlagSpec[]): string {
  return flags
    .filter((f) => f.value)
    .map((f) => quote(f.name))
    .join(' ');
}

/** `case` branches of a `switch "$argv"` that print words, one per distinct list, naming every path that has it. */
function switchBranches(commands: readonly CommandSpec[], wordsOf: (c: CommandSpec) => string): string {
  const pathsOf = new Map<string, string[]>();
  for (const c of commands) {
    const words = wordsOf(c);
    if (words === '') continue;
    pathsOf.set(words, [...(pathsOf.get(words) ?? []), c.path.join(' ')]);
  }
  return [...pathsOf]
    .map(([words, paths]) => `        case ${paths.map(quote).join(' ')}\n            printf '%s\\n' ${words}`)
    .join('\n');
}

function quote(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&')}'`;
}
