#!/usr/bin/env bash
# Builds the frame decoder fuzzer with clang (libFuzzer, ASan, UBSan) in build-fuzz/ and runs it
# for a bounded time, starting from the seed corpus in tests/fuzz/corpus/.
# Usage: scripts/fuzz.sh [seconds]   (default 60)
# Exits non-zero when the fuzzer finds a crash, a sanitizer report or a broken invariant; the
# input that did it is saved under build-fuzz/fuzz-artifacts/.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RECONSUME_FUZZ_BUILD_DIR:-$root/build-fuzz}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DRECONSUME_FUZZ=ON \
  -DRECONSUME_BUILD_BENCH=OFF -DRECONSUME_BUILD_TOOLS=OFF -DRECONSUME_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" --target frame_decoder_fuzzer

# New inputs go to the first directory; the checked-in seeds stay untouched.
corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus" "$artifacts"

"$build/tests/fuzz/frame_decoder_fuzzer" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 \
  "$corpus" "$root/tests/fuzz/corpus"
