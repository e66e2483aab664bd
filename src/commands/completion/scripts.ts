// The completion scripts. Each one is glue: at every TAB it asks the installed msgr
// (`msgr __complete <shell> -- <words>`), which answers from its own command tree and profile
// store, so the script never goes stale when msgr is upgraded or profiles change.
import type { Shell } from './complete.js';

const BASH = `# msgr completion for bash. Install: msgr completion --help
_msgr() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  local line
  local -a lines=()
  while IFS= read -r line; do lines+=("$line"); done < <(msgr __complete bash -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=()
  if [[ \${lines[0]-} == ":file" ]]; then
    [[ $cur == "=" ]] && cur=""
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
    return 0
  fi
  COMPREPLY=("\${lines[@]}")
  # An option that takes its value after "=" gets no space after the "=".
  if [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == *= ]]; then compopt -o nospace 2>/dev/null; fi
  return 0
}
complete -F _msgr msgr
`;

const ZSH = `#compdef msgr
# msgr completion for zsh. Install: msgr completion --help
_msgr() {
  local -a lines candidates
  local line
  lines=("\${(@f)$(msgr __complete zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "\${lines[1]}" == ":file" ]]; then
    _files
    return
  fi
  for line in "\${lines[@]}"; do
    [[ -n "$line" ]] && candidates+=("$line")
  done
  (( \${#candidates} )) && _describe -t values msgr candidates
}
if [[ "\${funcstack[1]}" == "_msgr" ]]; then
  _msgr "$@"
else
  compdef _msgr msgr
fi
`;

const FISH = `# msgr completion for fish. Install: msgr completion --help
function __msgr_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l cur (commandline -ct)
    set -l lines (msgr __complete fish -- $words "$cur" 2>/dev/null)
    if test "$lines[1]" = ":file"
        __fish_complete_path "$cur"
        return
    end
    printf '%s\\n' $lines
end
complete -c msgr -f -a '(__msgr_complete)'
`;

const POWERSHELL = `# msgr completion for PowerShell. Install: msgr completion --help
Register-ArgumentCompleter -Native -CommandName msgr -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition -or ($_.Extent.EndOffset -eq $cursorPosition -and $wordToComplete -ne '') } | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    if ($wordToComplete -ne '' -and $words.Count -gt 0) { $words = @($words | Select-Object -SkipLast 1) }
    # The word at the cursor goes last, behind "cur=": PowerShell drops an empty argument.
    $lines = @(& msgr __complete powershell -- @words "cur=$wordToComplete" 2>$null)
    if ($lines.Count -gt 0 -and $lines[0] -eq ':file') { return }
    foreach ($line in $lines) {
        $parts = $line -split "\`t", 2
        $value = $parts[0]
        $text = if ($parts.Count -gt 1 -and $parts[1]) { $parts[1] } else { $value }
        $quoted = if ($value -match '[\\s''"$\`;,(){}|&<>@#]') { "'" + ($value -replace "'", "''") + "'" } else { $value }
        [System.Management.Automation.CompletionResult]::new($quoted, $value, 'ParameterValue', $text)
    }
}
`;

export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return BASH;
    case 'zsh':
      return ZSH;
    case 'fish':
      return FISH;
    case 'powershell':
      return POWERSHELL;
  }
}
