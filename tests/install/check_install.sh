#!/usr/bin/env bash
# What a user of the package sees, in a scratch directory:
#   1. the library installed to a prefix, and a separate CMake project (find_package, no C++
#      standard of its own) configured, built and run against it;
#   2. the same program built with pkg-config instead of CMake, and run;
#   3. a project that add_subdirectory's the source tree gets the library target only: no test,
#      tool, bench or example targets, and no compiler launcher (ccache) of ours.
# Usage: check_install.sh <build dir> <scratch dir>
set -euo pipefail
build=$1
scratch=$2
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
rm -rf "$scratch"

echo "== find_package from a project that sets no standard"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$here/consumer" -B "$scratch/build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build"
"$scratch/build/consumer"

echo "== pkg-config"
pc_dir=$(dirname "$(find "$scratch/prefix" -name reconsume.pc | head -1)")
export PKG_CONFIG_PATH="$pc_dir"
flags=$(pkg-config --cflags --libs --static reconsume)
echo "pkg-config --cflags --libs --static reconsume: $flags"
# shellcheck disable=SC2086  # the flags are words
c++ -std=c++20 -o "$scratch/consumer-pkg-config" "$here/consumer/main.cpp" $flags
"$scratch/consumer-pkg-config"

echo "== add_subdirectory from a parent project"
cmake -S "$here/parent" -B "$scratch/parent" -G Ninja -DRECONSUME_SOURCE_DIR="$source_dir" >/dev/null
targets=$(ninja -C "$scratch/parent" -t targets all)
for unwanted in reconsume_unit_tests reconsume_cli bench_protocol example_; do
  if grep -q "$unwanted" <<<"$targets"; then
    echo "check_install: the parent project got a target of ours it did not ask for: $unwanted" >&2
    exit 1
  fi
done
grep -q "^consumer:" <<<"$targets" || { echo "check_install: no 'consumer' target" >&2; exit 1; }
if grep -q "ccache" "$scratch/parent/build.ninja"; then
  echo "check_install: the parent project's build goes through ccache, which it did not ask for" >&2
  exit 1
fi
echo "check_install: all good"
