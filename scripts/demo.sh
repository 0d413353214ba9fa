#!/usr/bin/env bash
# The README's first command: installs what is missing (Debian packages), builds the library and
# the `reconsume` tool, and runs the demo on the embedded broker. Arguments go to the demo
# (e.g. --orders 5000 --levels "50ms 100ms 1s").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RECONSUME_BUILD_DIR:-$root/build-demo}

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DRECONSUME_BUILD_TESTS=OFF -DRECONSUME_BUILD_BENCH=OFF -DRECONSUME_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" --target reconsume_cli
exec "$build/tools/reconsume" demo "$@"
