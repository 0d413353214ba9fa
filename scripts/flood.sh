#!/usr/bin/env bash
# Runs reconsume_flood (tests/load/flood.cpp) against the broker scripts/with-pulsar.sh started,
# handing it that broker's pid so that it can pause it (SIGSTOP) while it floods; whatever
# happens, the broker is resumed (SIGCONT) when this script exits.
#
# Usage: scripts/with-pulsar.sh scripts/flood.sh <path to reconsume_flood> [flood options...]
#   e.g. ... --messages 1000000 --max-pending 1000000 --max-peak-growth-mib 200
set -euo pipefail

flood=${1:?usage: $0 <reconsume_flood> [options...]}
shift
pulsar="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pulsar.sh"
pid=$("$pulsar" pid) || { echo "flood.sh: no Pulsar standalone is running" >&2; exit 1; }
trap 'kill -CONT "$pid" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$flood" --pause-pid "$pid" "$@"
