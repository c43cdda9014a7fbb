# bash completion for dtriage (written by tools/make-docs.py from dtriage's --help)
_dtriage() {
  local cur cmd opts
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "analyze diff scan summary merge rules events check snapshot-script --help --version" -- "$cur"))
    return
  fi
  cmd="${COMP_WORDS[1]}"
  case "$cmd" in
    analyze) opts="--baseline --ci --color --context --follow-outside-links --format --full --help --jobs --json --lang --max-event-memory --max-line-bytes --max-ratio --max-total-bytes --no-default-rules --no-gate --node-from-path --output --redact --rules --zstd-window-log-max -C -h -j -o" ;;
    diff) opts="--follow-outside-links --format --help --jobs --json --lang --max-event-memory --max-line-bytes --max-ratio --max-total-bytes --no-default-rules --no-gate --node-from-path --output --redact --rules --zstd-window-log-max -h -j -o" ;;
    scan) opts="--baseline --follow-outside-links --format --help --job-timeout --jobs --lang --max-event-memory --max-line-bytes --max-ratio --max-total-bytes --no-default-rules --no-gate --node-from-path --output --quiet --redact --report-format --reports --resume --rules --shard --summary --zstd-window-log-max -h -j -o -q" ;;
    summary) opts="--format --help --lang --output --since --until -h -o" ;;
    merge) opts="--help --lang --output -h -o" ;;
    rules) opts="list show test lint fields patterns literals --help --lang --no-default-rules --rules -h" ;;
    events) opts="--all-lines --follow-outside-links --format --help --lang --max-event-memory --max-line-bytes --max-ratio --max-total-bytes --node-from-path --output --raw --redact --zstd-window-log-max -h -o" ;;
    check) opts="--color --follow-outside-links --format --help --json --lang --launch --max-event-memory --max-line-bytes --max-ratio --max-total-bytes --node-from-path --output --redact --zstd-window-log-max -h -o" ;;
    snapshot-script) opts="--help --lang -h" ;;
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(printf '%s ' $opts | tr ' ' '\n' | grep -v '^-' | tr '\n' ' ')" -- "$cur") $(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _dtriage dtriage
