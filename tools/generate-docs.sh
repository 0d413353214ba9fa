#!/usr/bin/env bash
# Writes what is installed next to the `reconsume` binary: the bash and zsh completion scripts
# (from the tool's own definition) and, when help2man is installed, the man page, whose COMMANDS
# section is the --help of every command and verb.
# Usage: generate-docs.sh <reconsume binary> <output dir> <include file (.h2m)>
set -euo pipefail
tool=$1
out=$2
include=$3
mkdir -p "$out"
"$tool" completion bash >"$out/reconsume.bash"
"$tool" completion zsh >"$out/_reconsume"

if ! command -v help2man >/dev/null; then
  echo "generate-docs: help2man is not installed; no man page" >&2
  exit 0
fi
commands="$out/commands.h2m"
{
  cat "$include"
  echo
  echo "[COMMANDS]"
  for command in demo perf "dlq list" "dlq show" "dlq stats" "dlq export" "dlq replay" \
    "dlq purge" "dlq serve" completion; do
    echo ".SS \"reconsume $command\""
    echo ".nf"
    # shellcheck disable=SC2086  # the command's words
    "$tool" $command --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
    echo ".fi"
  done
} >"$commands"
help2man --no-info --section=1 --name="retry topics and dead letters for Apache Pulsar" \
  --include="$commands" --output="$out/reconsume.1" "$tool"
