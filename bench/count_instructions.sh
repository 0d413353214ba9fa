#!/usr/bin/env bash
# Instructions and heap allocations per embedded round trip (bench_embedded_roundtrip): counted by
# valgrind (callgrind, DHAT) over 2,000 and over 12,000 round trips, the difference divided by
# 10,000, so that setting up and closing the client cancel out. Unlike times, these counts are the
# same on any machine and under any load, which makes them the figure to compare before and after
# a change to the hot path. Needs valgrind (Debian's package).
#
# Usage: bench/count_instructions.sh [path to bench_embedded_roundtrip]
set -euo pipefail

bench=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/bench/bench_embedded_roundtrip"}
[[ -x "$bench" ]] || { echo "count_instructions.sh: no benchmark at '$bench'" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "count_instructions.sh: valgrind is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs the fixed-size variant of `iterations` round trips under `tool`; prints the tool's total.
count() {
  local tool=$1 iterations=$2
  valgrind --tool="$tool" --"$tool"-out-file="$work/out" "$bench" \
    --benchmark_filter="iterations:${iterations}\$" >/dev/null 2>"$work/log"
  case $tool in
    callgrind) sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$work/log" ;;
    dhat) sed -n 's/.*Total: *[0-9,]* bytes in \([0-9,]*\) blocks.*/\1/p' "$work/log" | tr -d , ;;
  esac
}

instructions=$(($(count callgrind 12000) - $(count callgrind 2000)))
allocations=$(($(count dhat 12000) - $(count dhat 2000)))
awk -v i="$instructions" -v a="$allocations" \
  'BEGIN { printf "per embedded round trip: %.0f instructions, %.1f heap allocations\n", i / 10000, a / 10000 }'
