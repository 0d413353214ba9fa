#!/usr/bin/env bash
# Builds a fuzzer with clang (libFuzzer, ASan, UBSan) in build-fuzz/ and runs it for a bounded
# time, starting from its checked-in seed corpus.
# Usage: scripts/fuzz.sh [seconds] [target]   (defaults: 60, frame_decoder)
#   frame_decoder          frame_decoder_fuzzer, seeds in tests/fuzz/corpus/
#   transaction_response   transaction_response_fuzzer, seeds in tests/fuzz/corpus-transaction/
#   all                    each of them in turn, for `seconds` each
# Exits non-zero when a fuzzer finds a crash, a sanitizer report or a broken invariant; the
# input that did it is saved under build-fuzz/fuzz-artifacts/.
set -euo pipefail

seconds="${1:-60}"
target="${2:-frame_decoder}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RECONSUME_FUZZ_BUILD_DIR:-$root/build-fuzz}"

case "$target" in
  frame_decoder | transaction_response) targets=("$target") ;;
  all) targets=(frame_decoder transaction_response) ;;
  *)
    echo "unknown fuzz target '$target' (frame_decoder, transaction_response or all)" >&2
    exit 2
    ;;
esac

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DRECONSUME_FUZZ=ON \
  -DRECONSUME_BUILD_BENCH=OFF -DRECONSUME_BUILD_TOOLS=OFF -DRECONSUME_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" --target "${targets[@]/%/_fuzzer}"

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

for name in "${targets[@]}"; do
  # New inputs go to the first directory; the checked-in seeds stay untouched.
  if [[ "$name" == frame_decoder ]]; then
    corpus="$build/fuzz-corpus"
    seeds="$root/tests/fuzz/corpus"
  else
    corpus="$build/fuzz-corpus-$name"
    seeds="$root/tests/fuzz/corpus-transaction"
  fi
  mkdir -p "$corpus"
  "$build/tests/fuzz/${name}_fuzzer" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "$corpus" "$seeds"
done
