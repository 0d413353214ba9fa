# shellcheck shell=bash
# What every script of scripts/ says the same way, sourced first thing after script_dir is set:
#   say TEXT   one line on stderr, after the script's name ("pulsar.sh: …")
#   die TEXT   say "ERROR: TEXT" and exit 1
#   usage      the script's opening comment (from line 2 to `set -euo …`), for --help
script_path=${BASH_SOURCE[1]}
script_name=$(basename "$script_path")

say() { echo "$script_name: $*" >&2; }
die() {
  say "ERROR: $*"
  exit 1
}
usage() { sed -n '2,/^set -euo/{/^set -euo/!s/^# \{0,1\}//p}' "$script_path"; }
