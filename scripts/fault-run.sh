#!/usr/bin/env bash
# The fault run that counts, bigger than the test command runs it: N messages through a handler
# that fails 30% of deliveries transiently and 2% of messages permanently, while the Pulsar
# standalone is killed (SIGKILL) and started again K times; then every message is counted on the
# done and dead-letter topics (tests/integration/pulsar_fault_run_test.cpp). Builds the integration
# tests, runs them through scripts/with-pulsar.sh, keeps the whole output in a log file and prints a
# summary table. Exits non-zero when a run failed its checks (a loss, a transactional duplicate,
# something left unacknowledged).
#
# Usage: scripts/fault-run.sh [--messages N] [--kills K] [--mode at-least-once|transactional|both]
#                             [--deadline SECONDS] [--cluster]
#   defaults: --messages 100000 --kills 3 --mode both; --deadline: the test's default
#   (180 + N/50 + 120 per kill seconds until every message must have a final outcome).
#   --cluster: on the two-broker cluster of scripts/pulsar-cluster.sh instead, killing the broker
#   that owns the input topic (tests/integration/pulsar_cluster_test.cpp; at-least-once only).
#
# The run kills the shared standalone: no other test may use it meanwhile (the test waits before
# each kill while another reconsume test process runs).
# Environment: RECONSUME_BUILD_DIR (default build), RECONSUME_PULSAR_HOME (as scripts/pulsar.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RECONSUME_BUILD_DIR:-$root/build}
messages=100000
kills=3
mode=both
deadline=
cluster=false

die() {
  echo "fault-run.sh: $*" >&2
  exit 2
}

while (($#)); do
  case $1 in
    --messages) messages=${2:?--messages needs a number}; shift ;;
    --kills) kills=${2:?--kills needs a number}; shift ;;
    --mode) mode=${2:?--mode needs a value}; shift ;;
    --deadline) deadline=${2:?--deadline needs seconds}; shift ;;
    --cluster) cluster=true ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
  shift
done
[[ $messages =~ ^[1-9][0-9]*$ ]] || die "--messages must be a positive number, not '$messages'"
[[ $kills =~ ^[0-9]+$ ]] || die "--kills must be a number, not '$kills'"
[[ -z $deadline || $deadline =~ ^[1-9][0-9]*$ ]] || die "--deadline must be seconds, not '$deadline'"
case $mode in
  at-least-once) filter=PulsarFaultRun.AtLeastOnce ;;
  transactional) filter=PulsarFaultRun.Transactional ;;
  both) filter='PulsarFaultRun.*' ;;
  *) die "--mode must be at-least-once, transactional or both, not '$mode'" ;;
esac
around=("$root/scripts/with-pulsar.sh")
if $cluster; then
  [[ $mode != transactional ]] || die "--cluster runs the at-least-once mode only"
  mode=at-least-once
  filter=PulsarCluster.ABrokerKilledMidRunLosesNothing
  # The tests check the standalone is there before any runs; the cluster is the one killed.
  around+=("$root/scripts/with-pulsar-cluster.sh")
fi

[[ -f $build/CMakeCache.txt ]] ||
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target reconsume_integration_tests

log="$build/fault-run-$(date +%Y%m%d-%H%M%S).log"
echo "fault-run.sh: $messages messages, $kills kills, mode $mode$($cluster && echo ', cluster'); output in $log"
export RECONSUME_FAULT_RUN_MESSAGES=$messages RECONSUME_FAULT_RUN_KILLS=$kills
[[ -z $deadline ]] || export RECONSUME_FAULT_RUN_DEADLINE=$deadline
set +e
"${around[@]}" "$build/tests/reconsume_integration_tests" \
  --gtest_filter="$filter" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# The test's figure lines: "[ fault-run ] mode=... messages=... key=value ...".
echo
echo "Summary ($log):"
grep '^\[ fault-run \] mode=[a-z-]* messages=' "$log" | awk '
  BEGIN {
    printf "%-14s %9s %5s %9s %13s %5s %10s %10s %8s %7s %8s  %s\n", "mode", "messages", "kills",
           "processed", "dead-lettered", "lost", "duplicates", "deliveries", "repeated", "backlog",
           "wall", "failed calls"
  }
  {
    delete f
    for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
    printf "%-14s %9s %5s %9s %13s %5s %10s %10s %8s %7s %8s  %s\n", f["mode"], f["messages"],
           f["kills"], f["processed"], f["dead-lettered"], f["lost"], f["duplicates"],
           f["deliveries"], f["repeated"], f["backlog"], f["wall"], f["failed-calls"]
  }'
if ((status != 0)); then
  echo "fault-run.sh: the run FAILED (exit $status); see $log" >&2
fi
exit "$status"
