#!/usr/bin/env bash
# Installs the built library into a scratch prefix, then configures, builds and runs a separate
# project that uses find_package(reconsume) — what a user's CMake project does.
# Usage: check_install.sh <build dir> <scratch dir>
set -euo pipefail
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$here/consumer" -B "$scratch/build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build"
"$scratch/build/consumer"
