// The bash script: a static table of the tree (one `case` branch per command path) and a
// function that walks COMP_WORDS through it. It uses nothing but bash builtins, so it works
// with or without the bash-completion package.
import type { Command } from 'commander';
import { commandsOf, describeTree, GENERATED_NOTICE, type CommandSpec } from './tree.js';

export function bashCompletion(program: Command): string {
  const root = describeTree(program);
  const commands = [...commandsOf(root)];
  const specs = commands.flatMap((c) => specBranch(c));
  const values = commands.flatMap((c) => valueBranches(c));
  return `# bash completion for svc, ${GENERATED_NOTICE}.
# Load it with \`source <(svc completion bash)\`, or save it as
# ~/.local/share/bash-completion/completions/svc.

# What the command at a path accepts: its subcommands, its flags (own and inherited), the
# flags that take a value, and per positional argument its choices ('' for a free value).
_svc_spec() {
  case $1 in
${specs.join('\n')}
  esac
}

# What a flag's value can be: one of its choices, a file name, or live values.
_svc_flag_values() {
  case $1 in
${values.join('\n')}
  esac
}

_svc() {
  local cur=\${COMP_WORDS[COMP_CWORD]} path=svc word flag i
  local subcommands flags value_flags values= files= live= candidates
  local -a args
  local -i operands=0 expect_value=0
  _svc_spec "$path"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    # COMP_WORDBREAKS holds '=', so --flag=value arrives as three words.
    [[ $word == = ]] && continue
    if ((expect_value)); then
      expect_value=0
    elif [[ $word == -* ]]; then
      [[ " $value_flags " == *" $word "* ]] && expect_value=1
    elif [[ " $subcommands " == *" $word "* ]]; then
      path+=" $word"
      operands=0
      _svc_spec "$path"
    else
      operands+=1
    fi
  done

  if ((expect_value)); then
    flag=\${COMP_WORDS[COMP_CWORD-1]}
    [[ $flag == = ]] && flag=\${COMP_WORDS[COMP_CWORD-2]}
    [[ $cur == = ]] && cur=
    _svc_flag_values "$path $flag"
    if [[ -n $files ]]; then
      compopt -o filenames 2>/dev/null
      local IFS=$'\\n'
      COMPREPLY=($(compgen -f -- "$cur"))
    elif [[ -n $live ]]; then
      _svc_live "\${path#svc}" "$flag"
    else
      # A comma-separated list (--status PENDING,AC): complete its last item.
      local head=
      [[ $cur == *,* ]] && head=\${cur%,*}, && cur=\${cur##*,}
      COMPREPLY=($(compgen -W "$values" -P "$head" -- "$cur"))
    fi
    return 0
  fi

  if [[ $cur != -* && -n $subcommands ]]; then
    candidates=$subcommands
  elif [[ $cur != -* ]] && ((operands < \${#args[@]})); then
    candidates=\${args[operands]}
    if [[ $candidates == @live:* ]]; then
      _svc_live "\${path#svc}" "\${candidates#@live:}"
      return 0
    fi
  else
    candidates=$flags
  fi
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
  return 0
}

# Live values (profiles, request IDs…) from \`svc __complete\`, which reads this machine only;
# a value's description (after a tab: a Grant's company) is for zsh and fish.
_svc_live() {
  local IFS=$'\\n' line
  local -a values=()
  for line in $("\${COMP_WORDS[0]}" __complete -- "\${1# }" "$2" 2>/dev/null); do values+=("\${line%%$'\\t'*}"); done
  COMPREPLY=($(compgen -W "\${values[*]}" -- "$cur"))
}

complete -F _svc svc
`;
}

function specBranch(c: CommandSpec): string[] {
  return [
    `    ${quote(['svc', ...c.path].join(' '))})`,
    `      subcommands=${quote(c.subcommands.map((s) => s.name).join(' '))}`,
    `      flags=${quote(c.flags.map((f) => f.name).join(' '))}`,
    `      value_flags=${quote(c.flags.filter((f) => f.value).map((f) => f.name).join(' '))}`,
    `      args=(${c.args.map((a) => quote(a.live ? `@live:${a.name}` : (a.choices?.join(' ') ?? ''))).join(' ')})`,
    '      ;;',
  ];
}

function valueBranches(c: CommandSpec): string[] {
  return c.flags.flatMap((f) => {
    const key = quote(['svc', ...c.path, f.name].join(' '));
    if (f.value?.choices) return [`    ${key}) values=${quote(f.value.choices.join(' '))} ;;`];
    if (f.value?.files) return [`    ${key}) files=1 ;;`];
    if (f.value?.live) return [`    ${key}) live=1 ;;`];
    return [];
  });
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
