#!/usr/bin/env bash
# Builds the fuzzers with clang (libFuzzer, ASan, UBSan) in build-fuzz/ and runs them for a bounded
# time each, starting from their checked-in seed corpora (tests/fuzz/README.md lists them).
# Usage: scripts/fuzz.sh [seconds] [target|all]   (defaults: 60, all)
#   target: frame_decoder transaction_response compression batch_payload admin_json
#           consumer_config retry_history message_id durations service_url
#   all:    each of them in turn, for `seconds` each
# New inputs go to build-fuzz/fuzz-corpus-<target>/; the checked-in seeds stay untouched.
# Prints per target the executions and exec/s. Exits non-zero when a fuzzer finds a crash, a
# sanitizer report or a broken invariant; the input that did it is saved under
# build-fuzz/fuzz-artifacts/. Extra libFuzzer flags: RECONSUME_FUZZ_FLAGS (e.g. "-jobs=1").
# RECONSUME_FUZZ_BUILD_ONLY=1 builds the targets and runs nothing (scripts/test.sh builds them
# while other tests run).
set -euo pipefail

seconds="${1:-60}"
target="${2:-all}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RECONSUME_FUZZ_BUILD_DIR:-$root/build-fuzz}"
all=(frame_decoder transaction_response compression batch_payload admin_json consumer_config
  retry_history message_id durations service_url)

# The seed directory of each target; the first two predate the naming scheme.
seeds_of() {
  case "$1" in
    frame_decoder) echo "$root/tests/fuzz/corpus" ;;
    transaction_response) echo "$root/tests/fuzz/corpus-transaction" ;;
    *) echo "$root/tests/fuzz/corpus-$1" ;;
  esac
}

if [[ "$target" == all ]]; then
  targets=("${all[@]}")
elif [[ " ${all[*]} " == *" $target "* ]]; then
  targets=("$target")
else
  echo "unknown fuzz target '$target' (${all[*]} or all)" >&2
  exit 2
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DRECONSUME_FUZZ=ON \
  -DRECONSUME_BUILD_BENCH=OFF -DRECONSUME_BUILD_TOOLS=OFF -DRECONSUME_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" --target "${targets[@]/%/_fuzzer}"
if [[ "${RECONSUME_FUZZ_BUILD_ONLY:-}" == 1 ]]; then exit 0; fi

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

summary=()
for name in "${targets[@]}"; do
  corpus="$build/fuzz-corpus-$name"
  log="$build/fuzz-$name.log"
  mkdir -p "$corpus"
  echo "==> $name for ${seconds}s"
  status=0
  # shellcheck disable=SC2086 # RECONSUME_FUZZ_FLAGS is a list of flags
  "$build/tests/fuzz/${name}_fuzzer" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/$name-" -print_final_stats=1 ${RECONSUME_FUZZ_FLAGS:-} \
    "$corpus" "$(seeds_of "$name")" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  line="$name: ${runs:-?} executions, ${speed:-?} exec/s"
  if ((status != 0)); then
    tail -n 60 "$log" >&2
    echo "FAILED $line (exit $status; log $log, input in $artifacts/)" >&2
    exit 1
  fi
  echo "$line"
  summary+=("$line")
done
printf '\nfuzzing summary (%ss each):\n' "$seconds"
printf '  %s\n' "${summary[@]}"
