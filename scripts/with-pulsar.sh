#!/usr/bin/env bash
# Runs a command against a Pulsar standalone: starts it (scripts/pulsar.sh start), runs the
# command, and when the command ends (or this script is interrupted) leaves the broker as it found
# it: stopped if nothing ran before, restarted as the variant that ran before, untouched if that
# variant was already running (so calls nest). Exits with the command's exit code; exits non-zero
# without running the command when the broker does not start.
#
# Usage: scripts/with-pulsar.sh [--clean] [--secure <dir>] [--conf <key>=<value>]... <command> [args...]
# (--conf: broker settings on top of the test settings; see scripts/pulsar.sh.)
# The command sees RECONSUME_PULSAR_URL and RECONSUME_PULSAR_ADMIN_URL: the URLs of the broker
# started here.
set -euo pipefail

pulsar="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pulsar.sh"
start_args=()
while (($#)); do
  case $1 in
    --clean) start_args+=(--clean) ;;
    --secure)
      [[ -n ${2:-} ]] || { echo "with-pulsar.sh: --secure needs a directory" >&2; exit 2; }
      start_args+=(--secure "$2")
      shift
      ;;
    --conf)
      [[ -n ${2:-} ]] || { echo "with-pulsar.sh: --conf needs key=value" >&2; exit 2; }
      start_args+=(--conf "$2")
      shift
      ;;
    --) shift; break ;;
    *) break ;;
  esac
  shift
done
if (($# == 0)); then
  echo "usage: $0 [--clean] [--secure <dir>] [--conf <key>=<value>]... <command> [args...]" >&2
  exit 2
fi

before=$("$pulsar" variant)

restore() {
  local now
  now=$("$pulsar" variant)
  [[ $now == "$before" ]] && return 0
  case $before in
    none) "$pulsar" stop ;;
    plain) "$pulsar" start ;;
    plain+conf\ *)
      local setting args=()
      for setting in ${before#plain+conf }; do args+=(--conf "$setting"); done
      "$pulsar" start "${args[@]}"
      ;;
    secure\ *) "$pulsar" start --secure "${before#secure }" ;;
  esac
}
trap 'restore || echo "with-pulsar.sh: could not put back the broker that ran before ($before)" >&2' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$pulsar" start "${start_args[@]}"
RECONSUME_PULSAR_URL=$("$pulsar" service-url)
RECONSUME_PULSAR_ADMIN_URL=$("$pulsar" admin-url)
export RECONSUME_PULSAR_URL RECONSUME_PULSAR_ADMIN_URL

set +e
"$@"
status=$?
set -e
exit "$status"
