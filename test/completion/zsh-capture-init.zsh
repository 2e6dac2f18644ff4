# Sourced by the interactive zsh that zsh-capture.zsh starts: load compinit, make <Tab>
# complete, and replace the listing with plain lines between two NUL markers.
PROMPT=
COLUMNS=400
unsetopt zle_bracketed_paste 2>/dev/null
autoload -Uz compinit
compinit -u -D
bindkey '^I' complete-word
zstyle ':completion:*' insert-tab false
zstyle ':completion:*' list-grouped false
__capture_marker() { print -rn -- $'\0\n' }
compprefuncs=(__capture_marker)
comppostfuncs=(__capture_marker exit)
compadd() {
  # Calls that only ask for matches (-O, -A, -D) go through untouched.
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
    builtin compadd "$@"
    return
  fi
  local -a hits descriptions
  local list
  if (( $@[(I)-d] )); then
    list=${@[$(( ${@[(i)-d]} + 1 ))]}
    if [[ $list == \(* ]]; then
      eval "descriptions=$list"
    else
      descriptions=("${(@P)list}")
    fi
  fi
  builtin compadd -A hits -D descriptions "$@"
  local -i i
  for (( i = 1; i <= $#hits; i++ )); do
    # A display string is "word  -- description"; keep the description.
    if (( i <= $#descriptions )) && [[ $descriptions[i] == *' -- '* ]]; then
      print -r -- "$hits[i] -- ${descriptions[i]#* -- }"
    else
      print -r -- "$hits[i]"
    fi
  done
}
