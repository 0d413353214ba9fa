#!/usr/bin/env bash
# Instructions and heap allocations per embedded round trip (bench_embedded_roundtrip): counted by
# valgrind (callgrind, DHAT) over 2,000 and over 12,000 round trips, the difference divided by
# 10,000, so that setting up and closing the client cancel out. Unlike times, these counts are
# nearly the same on any machine and under any load, which makes them the figure to compare before
# and after a change to the hot path. Needs valgrind (Debian's package).
#
# Nearly: the client's threads and timers run on the wall clock, which valgrind slows many times
# over, and once two runs in five counted about 14 million instructions more or less than the
# others (1,400 a trip once divided). So each count is taken --runs times (3 by default) and the
# median used; the lines after the result give every run's total, to show how far they spread.
#
# Usage: bench/count_instructions.sh [--runs N] [path to bench_embedded_roundtrip]
set -euo pipefail
shopt -s inherit_errexit  # a failed count inside $(...) stops the script

runs=3
if [[ ${1:-} == --runs ]]; then
  [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "count_instructions.sh: --runs needs a positive number, not '${2:-}'" >&2; exit 2; }
  runs=$2
  shift 2
fi
bench=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/bench/bench_embedded_roundtrip"}
[[ -x "$bench" ]] || { echo "count_instructions.sh: no benchmark at '$bench'" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "count_instructions.sh: valgrind is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs the fixed-size variant of `iterations` round trips under `tool` once; prints the tool's
# total.
count_once() {
  local tool=$1 iterations=$2
  valgrind --tool="$tool" --"$tool"-out-file="$work/out" "$bench" \
    --benchmark_filter="iterations:${iterations}\$" >/dev/null 2>"$work/log"
  local total
  case $tool in
    callgrind) total=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$work/log") ;;
    dhat) total=$(sed -n 's/.*Total: *[0-9,]* bytes in \([0-9,]*\) blocks.*/\1/p' "$work/log" | tr -d ,) ;;
  esac
  [[ -n $total ]] || { echo "count_instructions.sh: no total from valgrind --tool=$tool; its log:" >&2; cat "$work/log" >&2; exit 1; }
  echo "$total"
}

# `runs` counts of `iterations` round trips under `tool`: appends them to $work/runs, prints the
# median.
count() {
  local tool=$1 iterations=$2 totals=()
  for ((i = 0; i < runs; i++)); do totals+=("$(count_once "$tool" "$iterations")"); done
  echo "$tool, $iterations trips: ${totals[*]}" >>"$work/runs"
  printf '%s\n' "${totals[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

long_instructions=$(count callgrind 12000)
short_instructions=$(count callgrind 2000)
long_allocations=$(count dhat 12000)
short_allocations=$(count dhat 2000)
instructions=$((long_instructions - short_instructions))
allocations=$((long_allocations - short_allocations))
awk -v i="$instructions" -v a="$allocations" -v n="$runs" \
  'BEGIN { printf "per embedded round trip: %.0f instructions, %.1f heap allocations (medians of %d runs)\n", i / 10000, a / 10000, n }'
echo "every run's total:"
sed 's/^/  /' "$work/runs"
