#!/usr/bin/env zsh
# Prints what zsh's completion system offers for a command line, one candidate a line as
# "word -- description". zsh completes only inside the line editor, so this drives an
# interactive zsh on a pseudo-terminal (zpty) and prints the matches from a compadd
# wrapper instead of a menu. After github.com/Valodim/zsh-capture-completion.
# Usage: zsh -f zsh-capture.zsh DIR 'svc cre'   (compinit finds _svc in DIR, as installed)
#        zsh -f zsh-capture.zsh FILE 'svc cre'  (FILE is sourced after compinit)
zmodload zsh/zpty || exit 2
local script=$1 line init=${0:A:h}/zsh-capture-init.zsh
shift
zpty capture zsh -f -i
if [[ -d $script ]]; then
  zpty -w capture "fpath=(${(q)script} \$fpath); source ${(q)init}; print ready"
else
  zpty -w capture "source ${(q)init}; source ${(q)script}; print ready"
fi
# Wait for the child to be ready.
repeat 20; do
  zpty -r capture line || exit 2
  [[ $line == ready* ]] && break
done
[[ $line == ready* ]] || { print -u2 'zsh did not start'; exit 2 }
zpty -w -n capture "$*"$'\t'
integer seen=0
# The child prints a NUL line before and after the matches, then exits.
while zpty -r capture line; do
  if [[ $line == *$'\0'* ]]; then
    (( seen++ )) && exit 0
    continue
  fi
  (( seen )) && print -r -- ${line%$'\r'}
done
exit 2
