#!/usr/bin/env bash
# Two or more builds of `reconsume perf` against each other on the local standalone: does a change
# to the hot path make a phase cheaper, by more than the machine's noise? For each build, the
# phase's rate and CPU per message (the whole process, as in `reconsume perf`); for each build
# after the first, its CPU over the first's, round by round.
#
# How it keeps the noise out (docs/PERFORMANCE.md, the twenty-first look):
# - Paired rounds: each round runs every build once, in a shuffled order, so the broker's drift
#   and the machine's other load fall on all builds alike; the ratio to the first build is taken
#   within each round (median, [min-max], and in how many rounds the build was cheaper).
# - The broker's pace: a client's CPU per message falls as the broker's rate rises (correlation
#   -0.8 over 28 rounds of the side by side); the table also gives each build's CPU per message
#   read off a least-squares line of CPU against rate at the rate all runs share (their median).
# - Fresh brokers: each of --brokers instances is started with `scripts/pulsar.sh start --clean`
#   and stopped after its rounds. The test broker keeps every message: a run of 100,000 x 1 KiB
#   left about 0.4 GB, and one broker through ~170 runs filled the disk, its bookie turned
#   read-only and a run stalled until its sends failed; the runs before it had drifted. Each start
#   checks that the disk has room for the instance's rounds.
#
# Usage: scripts/perf-ab.sh [--brokers B (2)] [--rounds R (8, per broker)]
#            [--messages N (100000)] [--phase NAME]... [--conf key=value]... BUILD_A BUILD_B [BUILD...]
# A BUILD is a reconsume binary, e.g. a copy of build/tools/reconsume taken before the change
# (cp build/tools/reconsume /tmp/reconsume-before). --phase: a phase of `reconsume perf` to show
# (publish, "consume + ack" or reconsumeLater; by default all three, a table each). --conf goes to scripts/pulsar.sh start (e.g.
# managedLedgerCacheEvictionTimeThresholdMillis=60000 for the cache-kept regime). Restarts the
# standalone of scripts/pulsar.sh (a running one is replaced) and leaves it stopped; needs
# /usr/bin/python3 (the table: scripts/lib/perf_ab.py).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/say.sh
source "$script_dir/lib/say.sh"
repo_root=$(cd "$script_dir/.." && pwd)
python=/usr/bin/python3  # Debian's, standard library only

brokers=2 rounds=8 messages=100000
conf=() builds=() phases=()

while (($# > 0)); do
  case $1 in
    -h | --help)
      usage
      exit 0
      ;;
    --brokers | --rounds | --messages | --phase | --conf)
      (($# >= 2)) || die "$1 needs a value"
      case $1 in
        --brokers) brokers=$2 ;;
        --rounds) rounds=$2 ;;
        --messages) messages=$2 ;;
        --phase) phases+=("$2") ;;
        --conf) conf+=(--conf "$2") ;;
      esac
      shift 2
      ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      builds+=("$1")
      shift
      ;;
  esac
done
for option in brokers rounds messages; do
  [[ ${!option} =~ ^[1-9][0-9]*$ ]] || die "--$option '${!option}' is not a positive integer"
done
((${#phases[@]} > 0)) || phases=(publish "consume + ack" reconsumeLater)
for phase in "${phases[@]}"; do
  case $phase in
    publish | "consume + ack" | reconsumeLater) ;;
    *) die "--phase '$phase' is not a phase of reconsume perf (publish, \"consume + ack\", reconsumeLater)" ;;
  esac
done
((${#builds[@]} >= 2)) || die "give at least two builds to compare (see --help)"
for build in "${builds[@]}"; do
  [[ -x $build ]] || die "build '$build' is missing or not executable"
done
[[ -x $python ]] || die "$python is missing (Debian's python3 makes the table)"

# Room for one instance's rounds: at most ~7 bytes kept per byte published in a run (three topics,
# each in BookKeeper's journal and entry log; about 4 measured), plus a gigabyte.
need_kib=$(((${#builds[@]} * rounds * messages * 1024 * 7 / 1024) + 1024 * 1024))
data_dir="${RECONSUME_PULSAR_HOME:-$repo_root/.pulsar}"
mkdir -p "$data_dir"

work=$(mktemp -d "${TMPDIR:-/tmp}/perf-ab.XXXXXX")
stop_broker() { "$script_dir/pulsar.sh" stop >/dev/null 2>&1 || true; }
trap 'stop_broker; rm -rf "$work"' EXIT

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "perf-ab: ${#builds[@]} builds; $brokers fresh broker(s) x $rounds round(s) of $messages messages"
echo "  machine: $(nproc) CPUs, ${cpu_model:-unknown CPU model}"
((${#conf[@]} == 0)) || echo "  broker:  scripts/pulsar.sh start --clean ${conf[*]}"

for ((broker = 1; broker <= brokers; broker++)); do
  say "broker $broker of $brokers: starting a fresh standalone"
  "$script_dir/pulsar.sh" start --clean "${conf[@]}" >"$work/broker-$broker.log" 2>&1 || {
    tail -n 20 "$work/broker-$broker.log" >&2
    die "the standalone did not start"
  }
  free_kib=$(df -Pk "$data_dir" | awk 'NR == 2 { print $4 }')
  ((free_kib >= need_kib)) ||
    die "$((free_kib / 1024)) MiB free under $data_dir, about $((need_kib / 1024)) MiB needed for a broker's rounds"
  for ((round = 1; round <= rounds; round++)); do
    say "  round $round of $rounds"
    for index in $(seq 0 $((${#builds[@]} - 1)) | shuf); do
      out="$work/b$broker-r$round-$index.json"
      status=0
      "${builds[$index]}" perf --url pulsar://localhost:6650 --messages "$messages" --json \
        >"$out" 2>"$out.err" || status=$?
      grep -q '"phases"' "$out" || {
        tail -n 20 "$out.err" >&2
        die "build ${builds[$index]} produced no result (exit status $status)"
      }
      ((status == 0)) || say "warning: ${builds[$index]} exited with $status (some operations failed)"
    done
  done
  stop_broker
done

"$python" "$script_dir/lib/perf_ab.py" "$work" "$(IFS=,; echo "${phases[*]}")" "${builds[@]}"
