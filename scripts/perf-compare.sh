#!/usr/bin/env bash
# reconsume against the official Java client (4.0.8), side by side on one running broker: the
# three phases of `reconsume perf` (publish, consume + ack, reconsumeLater; tools/perf.cpp) and
# their twin in the Java harness (tests/interop, `perf`; Perf.java): messages per second, CPU
# microseconds per message (the whole process: client threads, and for Java the JIT and GC) and
# how much of it in the kernel (system time: sockets, and on loopback the broker side's TCP
# receive; the same bytes cost both clients about the same there), peak resident set, and the
# p50 / p99 latency of the phase's operation. Java is measured twice:
# "fresh" (one round in a new JVM: what a short-lived process sees, JIT still cold) and "warm"
# (the last of --warm-rounds rounds in one JVM: a long-running service).
#
# Why alternating: the broker's state drifts during a run (its ledgers grow and roll, its caches
# and JIT warm up, the machine's other load comes and goes), so a client that always ran first or
# last would carry that drift. Each of --rounds rounds runs all three, the order rotated
# (reconsume, Java fresh, Java warm; then Java fresh, Java warm, reconsume; ...), and the table
# shows medians with [min-max] over the rounds.
#
# Two broker regimes worth comparing:
#   scripts/pulsar.sh start
#       the project's test broker, Pulsar's default managedLedgerCacheEvictionTimeThresholdMillis
#       (1000): entries older than a second leave the broker's cache, so a consumer that lags the
#       publisher reads them back from BookKeeper;
#   scripts/pulsar.sh start --conf managedLedgerCacheEvictionTimeThresholdMillis=60000
#       entries kept a minute. Starting it restarts the running broker as the variant
#       "plain+conf ..."; `scripts/pulsar.sh start` goes back.
# Which one a phase got, the table says: the entries the broker read back from its bookies during
# each client's phase. Measured 2026-11-27: with one entry per message the minute-long cache
# serves every read; with batched entries (both clients' default) both regimes read about 2,000
# entries per 100,000 messages from the bookies, and their figures no longer differ. Adding
# --conf cacheEvictionByMarkDeletedPosition=true keeps those in the cache too (0 reads), but the
# standalone ran out of direct memory in the fourth round of a five-round comparison.
#
# A broker just started runs its own code cold (the JVM's JIT) and its first topics' ledgers are
# new: whichever client runs first would pay for that. Before the rounds, --warmup (1 by default;
# 0: none) unmeasured rounds run each client once, with the same settings, and are discarded.
#
# Usage: scripts/perf-compare.sh [--rounds K (3)] [--messages N (100000)] [--size S (1024)]
#            [--window W (1000)] [--warm-rounds M (4)] [--warmup U (1)] [--url pulsar://localhost:6650]
#            [--admin-url http://localhost:8080] [--reconsume PATH (build/tools/reconsume)]
#            [--json-out FILE]
# Needs: the reconsume binary, tests/interop/build.sh's jar, java, and /usr/bin/python3 (the
# table: scripts/lib/perf_compare.py). JAVA_OPTS (word-split) goes to both Java runs. Builds
# nothing and starts no broker. --json-out FILE: every run's raw JSON, grouped by round.
# --admin-url (by default http://<the URL's host>:8080): where both clients read the broker's
# metrics before and after each phase, to say how many entries it read back from its bookies
# rather than its cache (a line under each phase's table; a broker-wide counter).
# Disk: the test broker keeps every message (retention -1), and each client's run stores ~3 x N x S
# bytes (the plain topic, the reconsume topic and its retry topic), twice over in BookKeeper (its
# journal and its entry log). One comparison with the defaults (a warm-up and three rounds, the
# warm JVM repeating its phases four times) left 13 GB in .pulsar/data (measured 2026-11-26);
# `scripts/pulsar.sh start --clean` wipes it.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/say.sh
source "$script_dir/lib/say.sh"
repo_root=$(cd "$script_dir/.." && pwd)
jar="$repo_root/tests/interop/target/reconsume-interop.jar"
python=/usr/bin/python3  # Debian's, standard library only (not a pyenv one from PATH)

rounds=3 messages=100000 size=1024 window=1000 warm_rounds=4 warmup=1
url=pulsar://localhost:6650
admin_url=""
reconsume="$repo_root/build/tools/reconsume"
json_out=""

while (($# > 0)); do
  case $1 in
    -h | --help)
      usage
      exit 0
      ;;
    --rounds | --messages | --size | --window | --warm-rounds | --warmup | --url | --admin-url | --reconsume | --json-out)
      (($# >= 2)) || die "$1 needs a value"
      case $1 in
        --rounds) rounds=$2 ;;
        --messages) messages=$2 ;;
        --size) size=$2 ;;
        --window) window=$2 ;;
        --warm-rounds) warm_rounds=$2 ;;
        --warmup) warmup=$2 ;;
        --url) url=$2 ;;
        --admin-url) admin_url=$2 ;;
        --reconsume) reconsume=$2 ;;
        --json-out) json_out=$2 ;;
      esac
      shift 2
      ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
for option in rounds messages window warm_rounds; do
  [[ ${!option} =~ ^[1-9][0-9]*$ ]] || die "--${option//_/-} '${!option}' is not a positive integer"
done
[[ $size =~ ^[0-9]+$ ]] || die "--size '$size' is not an integer"
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup '$warmup' is not an integer"

# What is needed, each named when missing.
[[ -x $reconsume ]] || die "the reconsume binary is missing or not executable: $reconsume" \
  "(build the tools target, or give --reconsume PATH)"
[[ -f $jar ]] || die "the Java harness is not built: $jar is missing; run tests/interop/build.sh"
[[ -x $python ]] || die "$python is missing (Debian's python3 makes the table)"
"$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2])' \
  "$jar" org/reconsume/interop/Perf.class 2>/dev/null ||
  die "$jar has no perf command (built before Perf.java); run tests/interop/build.sh"
command -v java >/dev/null || die "java is not in PATH (Java 17 runs the harness)"
java_opts=()
read -r -a java_opts <<<"${JAVA_OPTS:-}"

work=$(mktemp -d "${TMPDIR:-/tmp}/perf-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The broker's cache eviction threshold, when the URL is the local standalone of scripts/pulsar.sh
# (its conf file is rewritten at every start, so it tells what runs); nothing otherwise.
broker_regime() {
  local host=${url#*://} variant conf value
  host=${host%%[:/]*}
  [[ $host == localhost || $host == 127.0.0.1 ]] || return 0
  variant=$("$script_dir/pulsar.sh" variant 2>/dev/null) || return 0
  [[ -n $variant && $variant != none ]] || return 0
  conf="${RECONSUME_PULSAR_HOME:-$repo_root/.pulsar}/apache-pulsar-${RECONSUME_PULSAR_VERSION:-4.0.8}/conf"
  if [[ $variant == secure\ * ]]; then conf+=/standalone-secure.conf; else conf+=/standalone.conf; fi
  value=$(sed -n 's/^managedLedgerCacheEvictionTimeThresholdMillis=//p' "$conf" 2>/dev/null | tail -n 1)
  printf 'scripts/pulsar.sh variant "%s"' "$variant"
  [[ -z $value ]] || printf ', managedLedgerCacheEvictionTimeThresholdMillis=%s' "$value"
}

if [[ -z $admin_url ]]; then
  admin_host=${url#*://}
  admin_host=${admin_host%%[:/,]*}
  admin_url="http://$admin_host:8080"
fi
# A build from before --admin-url reports no bookie reads.
reconsume_admin=(--admin-url "$admin_url")
"$reconsume" perf --help 2>/dev/null | grep -q -- '--admin-url' || reconsume_admin=()

# --batching on, said explicitly; a build from before that option has only its defaults.
reconsume_batching=(--batching on)
reconsume_mode="batching on"
if ! "$reconsume" perf --help 2>/dev/null | grep -q -- '--batching'; then
  reconsume_batching=()
  reconsume_mode="an older build without --batching: its defaults"
fi

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
machine="$(nproc) CPUs, ${cpu_model:-unknown CPU model}"
regime=$(broker_regime)
java_version=$(java -version 2>&1 | head -n 1)
echo "perf-compare: reconsume vs the Java client; $rounds round(s) of $messages messages of $size bytes, window $window"
echo "  machine:   $machine"
echo "  broker:    $url${regime:+ ($regime)}; metrics at $admin_url/metrics/"
echo "  reconsume: $reconsume ($reconsume_mode)"
echo "  Java:      $java_version; fresh = 1 round per JVM, warm = the last of $warm_rounds rounds in one JVM"
echo "  warm-up:   $warmup unmeasured round(s) of reconsume and Java before the measured ones"

# run_client CLIENT OUT: one run, its stdout (the JSON) in OUT, its stderr in OUT.err.
run_client() {
  local client=$1 out=$2 status=0 started=$SECONDS
  local common=(--url "$url" --messages "$messages" --size "$size" --window "$window" --json)
  case $client in
    reconsume)
      "$reconsume" perf "${common[@]}" "${reconsume_batching[@]}" "${reconsume_admin[@]}" \
        >"$out" 2>"$out.err" ||
        status=$?
      ;;
    java-fresh)
      java "${java_opts[@]}" -jar "$jar" perf "${common[@]}" --admin-url "$admin_url" --rounds 1 \
        >"$out" 2>"$out.err" ||
        status=$?
      ;;
    java-warm)
      java "${java_opts[@]}" -jar "$jar" perf "${common[@]}" --admin-url "$admin_url" \
        --rounds "$warm_rounds" >"$out" 2>"$out.err" || status=$?
      ;;
  esac
  if ! grep -q '"phases"' "$out"; then
    say "$client produced no result (exit status $status); its output:"
    tail -n 20 "$out" "$out.err" >&2
    die "$client failed"
  fi
  ((status == 0)) || say "warning: $client exited with $status (some operations failed; see the table)"
  say "  $client: $((SECONDS - started)) s"
}

clients=(reconsume java-fresh java-warm)
for ((round = 1; round <= warmup; round++)); do
  say "warm-up round $round of $warmup (not measured)"
  mkdir -p "$work/warmup"
  for client in reconsume java-fresh; do run_client "$client" "$work/warmup/$round-$client.jsonl"; done
done
for ((round = 1; round <= rounds; round++)); do
  say "round $round of $rounds"
  for ((position = 0; position < 3; position++)); do
    client=${clients[$(((round - 1 + position) % 3))]}
    run_client "$client" "$work/r$round-$position-$client.jsonl"
  done
done

aggregate=("$work" --setting "machine=$machine" --setting "url=$url" --setting "rounds=$rounds"
  --setting "messages=$messages" --setting "size=$size" --setting "window=$window"
  --setting "warmRounds=$warm_rounds" --setting "java=$java_version")
[[ -z $regime ]] || aggregate+=(--setting "broker=$regime")
[[ -z $json_out ]] || aggregate+=(--json-out "$json_out")
"$python" "$script_dir/lib/perf_compare.py" "${aggregate[@]}"
[[ -z $json_out ]] || say "raw results: $json_out"
