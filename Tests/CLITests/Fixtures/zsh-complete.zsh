# Prints, one a line, the words zsh's completion system offers for the line "$1" (its last
# word half-typed) with the completion script "$2" sourced: an interactive zsh in a pty
# (zsh/zpty) is sent the line and a TAB; `compadd` is wrapped to print what it adds
# (folders with a trailing /). After zsh-capture-completion (Valodim, MIT). Used by
# CompletionCLITests; run as `zsh -f zsh-complete.zsh LINE SCRIPT` in the folder to complete in.
zmodload zsh/zpty || exit 2
init=$(mktemp) || exit 2
cat > $init <<'INIT'
PROMPT=
autoload -U compinit && compinit -u -D
bindkey '^M' undefined
bindkey '^J' undefined
bindkey '^I' complete-word
null-line () { echo -E - $'\0' }
compprefuncs=( null-line )
comppostfuncs=( null-line exit )
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
zstyle ':completion:*' list-separator ''
compadd () {
    if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
    typeset -a __hits
    builtin compadd -A __hits "$@"
    local h
    for h in $__hits; do [[ -d $h ]] && echo -E - "$h/" || echo -E - "$h"; done
}
INIT
print -r -- "source ${(q)2}; echo ok" >> $init
zpty z zsh -f -i
local line
zpty -w z "source ${(q)init}"
repeat 8; do zpty -r z line; [[ $line == ok* ]] && break; done
rm -f $init
zpty -w z "$1"$'\t'
integer tog=0
while zpty -r z; do :; done | while IFS= read -r line; do
    if [[ $line == *$'\0\r' ]]; then (( tog++ )) && exit 0 || continue; fi
    (( tog )) && echo -E - "${line%$'\r'}"
done
