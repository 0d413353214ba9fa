#!/usr/bin/env bash
# A two-broker Apache Pulsar cluster on localhost for reconsume's fault tests (broker crashes,
# ownership moves, lookups redirected between brokers), from the same Maven distribution as
# scripts/pulsar.sh. See docs/CLUSTER.md.
#
# Usage: scripts/pulsar-cluster.sh start [--clean] | stop | status | pids
#        scripts/pulsar-cluster.sh kill-broker N | stop-broker N | start-broker N | restart-broker N
#        scripts/pulsar-cluster.sh service-url | admin-url [N] | broker-url N | log N | unload <topic> [--to N]
#
#   start           fetch and unpack the distribution if needed (scripts/lib/pulsar-dist.sh),
#                   write the configuration, start what is not running (ZooKeeper, then the
#                   cluster metadata once, the bookie, both brokers) and wait until both brokers
#                   are ready and healthy and public/default exists; prints the service URL.
#                   --clean stops everything and wipes the data (and logs) first; otherwise data
#                   survives stop/start.
#   stop            SIGTERM to the brokers, then the bookie, then ZooKeeper; SIGKILL whatever still
#                   runs after RECONSUME_CLUSTER_STOP_TIMEOUT s (default 60). Keeps the data.
#   status          exit 0 when all four processes run and both brokers are ready and healthy.
#   pids            "<name> <pid>" for every process that runs (zookeeper, bookie, broker-1, broker-2).
#   kill-broker N   SIGKILL broker N (1 or 2) only.
#   stop-broker N   SIGTERM broker N only (it hands its bundles over), SIGKILL after the timeout.
#   start-broker N  start broker N again and wait until it is ready and healthy (after a kill, first
#                   until the killed broker's registration left ZooKeeper with its session).
#   restart-broker N  stop-broker N, then start-broker N.
#   service-url     pulsar://localhost:6660,localhost:6662 (both brokers, multi-host form).
#   admin-url [N]   http://localhost:8090 (broker 1; N=2: http://localhost:8092).
#   broker-url N    pulsar://localhost:6660 or pulsar://localhost:6662.
#   log N           the path of the output file of broker N, or of "zookeeper", "bookie", "init".
#   unload <topic> [--to N]
#                   moves the topic (every partition of a partitioned topic) to the other broker,
#                   or to broker N: unloads the namespace bundle holding it through the admin API
#                   (PUT .../namespaces/<ns>/<bundle>/unload?destinationBroker=...) and looks it
#                   up again; prints "<topic> <old owner> -> <new owner>". Ownership is per
#                   bundle, so the other topics of that bundle move too.
#
# Ports (none shared with the standalone's 6650/6651/8080/8443/2181/3181/8000):
#   ZooKeeper 2191 (admin server and metrics off)  bookie 3191 (HTTP server and metrics off)
#   broker 1  binary 6660, web 8090                broker 2  binary 6662, web 8092
#
# Memory (override with RECONSUME_CLUSTER_ZK_MEM, RECONSUME_CLUSTER_BOOKIE_MEM,
# RECONSUME_CLUSTER_BROKER_MEM; G1, no pre-touch, a small -Xms, so RSS is what is used):
#   ZooKeeper -Xmx128m; bookie -Xmx256m, 256m direct (write and read-ahead caches 32 MiB each);
#   each broker -Xmx512m, 256m direct (managed-ledger cache 32 MiB).
# Measured (Debian 12, 2 cores, Java 17, Pulsar 4.0.8; docs/CLUSTER.md has the details):
#   RSS after start:  ZooKeeper 119-137 MiB, bookie 178-182 MiB, brokers 360-432 MiB each
#                     (about 1.1 GiB in all);
#   after 20 000 x 1 KiB messages produced and consumed through both brokers: ZooKeeper 132,
#                     bookie 210, broker 1 447, broker 2 379 MiB.
#   start --clean (cold, with the metadata initialisation): 13-21 s; start on existing data
#   (warm): 15-17 s; start-broker after kill-broker: 17 s (4-8 s of it starting: it first waits
#   for the killed broker's registration to go with its ZooKeeper session); stop: 6-6.5 s; topics
#   of a killed broker are served by the other one after 10-11 s (that session's timeout).
#
# Environment: RECONSUME_PULSAR_VERSION, RECONSUME_PULSAR_HOME (as scripts/pulsar.sh),
# RECONSUME_CLUSTER_START_TIMEOUT (s, default 180), RECONSUME_CLUSTER_STOP_TIMEOUT (s, default 60).
#
# Layout of <RECONSUME_PULSAR_HOME>/cluster: conf/ (zookeeper.conf, bookkeeper.conf,
# broker-1.conf, broker-2.conf, written from the distribution's files at every start), data/
# (zookeeper/, bookie/journal, bookie/ledgers, broker-N/ (NAR extraction, tmp)), logs/
# (<name>.out: a process's output; <name>-gc.log), run/ (<name>.pid, lock).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/say.sh
source "$script_dir/lib/say.sh"
repo_root=$(cd "$script_dir/.." && pwd)
# version, home, dist, fetch_distribution, set_conf, apply_test_broker_settings
# shellcheck source-path=SCRIPTDIR source=lib/pulsar-dist.sh
source "$script_dir/lib/pulsar-dist.sh"

cluster_home="$home/cluster"
conf_dir="$cluster_home/conf"
data_dir="$cluster_home/data"
logs="$cluster_home/logs"
run="$cluster_home/run"
cluster_name=reconsume-cluster
zk_port=2191
bookie_port=3191
broker_ports=(6660 6662)
web_ports=(8090 8092)
zk_mem=${RECONSUME_CLUSTER_ZK_MEM:-"-Xms32m -Xmx128m -XX:MaxDirectMemorySize=64m"}
bookie_mem=${RECONSUME_CLUSTER_BOOKIE_MEM:-"-Xms64m -Xmx256m -XX:MaxDirectMemorySize=256m"}
broker_mem=${RECONSUME_CLUSTER_BROKER_MEM:-"-Xms128m -Xmx512m -XX:MaxDirectMemorySize=256m"}
start_timeout=${RECONSUME_CLUSTER_START_TIMEOUT:-180}
stop_timeout=${RECONSUME_CLUSTER_STOP_TIMEOUT:-60}
components=(zookeeper bookie broker-1 broker-2)

# ---------------------------------------------------------------------------------------------
# Names, ports, URLs

# broker_index N: 0 or 1 for broker 1 or 2 (main checks N with need_broker first).
broker_index() { echo $(($1 - 1)); }
need_broker() { [[ ${1:-} == [12] ]] || die "no broker '${1:-}': 1 or 2"; }

broker_url() { echo "pulsar://localhost:${broker_ports[$(broker_index "$1")]}"; }
web_url() { echo "http://localhost:${web_ports[$(broker_index "$1")]}"; }
service_url() { echo "pulsar://localhost:${broker_ports[0]},localhost:${broker_ports[1]}"; }
# The broker's id in the load manager and the destinationBroker of an unload.
broker_id() { echo "localhost:${web_ports[$(broker_index "$1")]}"; }

# main_class NAME and conf_file NAME: what a process of ours has on its command line.
main_class() {
  case $1 in
    zookeeper) echo org.apache.zookeeper.server.quorum.QuorumPeerMain ;;
    bookie) echo org.apache.bookkeeper.server.Main ;;
    broker-*) echo org.apache.pulsar.PulsarBrokerStarter ;;
  esac
}
conf_file() {
  case $1 in
    zookeeper) echo "$conf_dir/zookeeper.conf" ;;
    bookie) echo "$conf_dir/bookkeeper.conf" ;;
    broker-*) echo "$conf_dir/$1.conf" ;;
  esac
}
ports_of() {
  case $1 in
    zookeeper) echo "$zk_port" ;;
    bookie) echo "$bookie_port" ;;
    broker-1) echo "${broker_ports[0]} ${web_ports[0]}" ;;
    broker-2) echo "${broker_ports[1]} ${web_ports[1]}" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Configuration: written from the distribution's own files at every start (write_config).

# shellcheck source-path=SCRIPTDIR source=lib/cluster-config.sh
source "$script_dir/lib/cluster-config.sh"

# ---------------------------------------------------------------------------------------------
# Processes: pid_file, running_pid, alive, port_in_use (lib/ports.sh), launch, check_ports,
# terminate, wait_gone

# shellcheck source-path=SCRIPTDIR source=lib/ports.sh
source "$script_dir/lib/ports.sh"
# shellcheck source-path=SCRIPTDIR source=lib/cluster-processes.sh
source "$script_dir/lib/cluster-processes.sh"

# ---------------------------------------------------------------------------------------------
# Health: zk_ready, bookie_ready, broker_ready, broker_healthy, wait_unregistered, wait_until,
# fail_start, ensure_default_namespace

# shellcheck source-path=SCRIPTDIR source=lib/cluster-health.sh
source "$script_dir/lib/cluster-health.sh"

# ---------------------------------------------------------------------------------------------
# Commands

start_zookeeper() {
  running_pid zookeeper >/dev/null && return 0
  mkdir -p "$data_dir/zookeeper"
  launch zookeeper bin/pulsar zookeeper
  wait_until "serving" zookeeper zk_ready
}

# Once per data directory: the cluster (both web and binary URLs), BookKeeper's metadata, the
# tenants public and pulsar, the namespaces public/default and pulsar/system, and the partitioned
# topic the transaction coordinators are assigned from (16 partitions, spread over the brokers).
initialize_metadata() {
  local marker="$data_dir/metadata-initialized"
  [[ -f "$marker" ]] && return 0
  say "initialising the cluster metadata ($cluster_name)"
  local out="$logs/init.out"
  if ! (
    exec 9>&-
    cd "$dist"
    env PULSAR_MEM="-Xms64m -Xmx256m" PULSAR_GC="-XX:+UseSerialGC" PULSAR_GC_LOG=" " \
      PULSAR_LOG_DIR="$logs" PULSAR_LOG_FILE=init.log \
      bin/pulsar initialize-cluster-metadata --cluster "$cluster_name" \
      --metadata-store "zk:localhost:$zk_port" --configuration-metadata-store "zk:localhost:$zk_port" \
      --web-service-url "http://localhost:${web_ports[0]},localhost:${web_ports[1]}" \
      --broker-service-url "$(service_url)" </dev/null >>"$out" 2>&1
  ); then
    tail -n 40 "$out" >&2 || true
    die "initialize-cluster-metadata failed (see $out)"
  fi
  touch "$marker"
}

start_bookie() {
  if ! running_pid bookie >/dev/null; then
    mkdir -p "$data_dir/bookie/journal" "$data_dir/bookie/ledgers"
    launch bookie bin/pulsar bookie
  fi
  wait_until "registered in ZooKeeper" bookie bookie_ready
}

launch_broker() {
  local n=$1
  running_pid "broker-$n" >/dev/null && return 0
  mkdir -p "$data_dir/broker-$n/nar"
  launch "broker-$n" bin/pulsar broker
}

wait_broker() { wait_until "ready and healthy" "broker-$1" broker_healthy "$1"; }

do_start() {
  local clean=$1 began=$SECONDS
  if [[ $clean == yes ]]; then
    terminate broker-1 broker-2 bookie zookeeper
    say "wiping $data_dir and $logs"
    rm -rf "$data_dir" "$logs"
  fi
  fetch_distribution
  mkdir -p "$data_dir" "$logs" "$run"
  write_config
  check_ports "${components[@]}"
  start_zookeeper
  say "zookeeper serving on $zk_port ($((SECONDS - began)) s)"
  initialize_metadata
  start_bookie
  say "bookie registered on $bookie_port ($((SECONDS - began)) s)"
  # Both brokers at once: half the wall time of one after the other.
  launch_broker 1
  launch_broker 2
  wait_broker 1
  wait_broker 2
  ensure_default_namespace
  say "ready in $((SECONDS - began)) s: $(service_url), admin $(web_url 1) and $(web_url 2)"
  service_url
}

do_stop() {
  terminate broker-1 broker-2
  terminate bookie
  terminate zookeeper
  say "stopped"
}

do_start_broker() {
  local n=$1 began=$SECONDS
  if ! running_pid zookeeper >/dev/null || ! running_pid bookie >/dev/null; then
    die "ZooKeeper and the bookie are not running (start the cluster first)"
  fi
  write_config
  check_ports "broker-$n"
  wait_unregistered "$n"
  launch_broker "$n"
  wait_broker "$n"
  say "broker $n ready in $((SECONDS - began)) s ($(broker_url "$n"), $(web_url "$n"))"
}

do_kill_broker() {
  local n=$1 pid
  if ! pid=$(running_pid "broker-$n"); then
    say "broker $n is not running"
    return 0
  fi
  kill -KILL "$pid" 2>/dev/null || true
  wait_gone "$pid"
  rm -f "$(pid_file "broker-$n")"
  say "broker $n killed (pid $pid, SIGKILL)"
}

do_status() {
  local ok=0 name pid
  for name in "${components[@]}"; do
    if pid=$(running_pid "$name"); then
      local state=running
      case $name in
        broker-*)
          if broker_healthy "${name#broker-}"; then state="running, ready"; else state="running, NOT READY"; ok=1; fi
          ;;
      esac
      say "$name: pid $pid, $state"
    else
      say "$name: not running"
      ok=1
    fi
  done
  if ((ok == 0)); then say "cluster ready: $(service_url)"; fi
  return "$ok"
}

do_pids() {
  local name pid
  for name in "${components[@]}"; do
    if pid=$(running_pid "$name"); then echo "$name $pid"; fi
  done
}

do_log() {
  case ${1:-} in
    1 | 2) echo "$logs/broker-$1.out" ;;
    zookeeper | bookie | init) echo "$logs/$1.out" ;;
    *) die "log: 1, 2, zookeeper, bookie or init" ;;
  esac
}

# unload: topic_path, owner_of, do_unload
# shellcheck source-path=SCRIPTDIR source=lib/cluster-unload.sh
source "$script_dir/lib/cluster-unload.sh"

main() {
  local command=${1:-}
  [[ -n $command ]] || die "usage: $0 start [--clean]|stop|status|pids|kill-broker N|stop-broker N|start-broker N|restart-broker N|service-url|admin-url [N]|broker-url N|log N|unload <topic> [--to N]"
  shift
  case $command in
    start | stop | kill-broker | stop-broker | start-broker | restart-broker)
      # One change at a time.
      mkdir -p "$run"
      exec 9>"$run/lock"
      flock 9
      ;;
  esac
  case $command in
    start)
      local clean=no
      case ${1:-} in
        --clean) clean=yes ;;
        "") ;;
        *) die "unknown option '$1'" ;;
      esac
      do_start "$clean"
      ;;
    stop) do_stop ;;
    status) do_status ;;
    pids) do_pids ;;
    kill-broker | stop-broker | start-broker | restart-broker | broker-url) need_broker "${1:-}" ;;&
    kill-broker) do_kill_broker "$1" ;;
    stop-broker) terminate "broker-$1" ;;
    start-broker) do_start_broker "$1" ;;
    restart-broker)
      terminate "broker-$1"
      do_start_broker "$1"
      ;;
    broker-url) broker_url "$1" ;;
    service-url) service_url ;;
    admin-url)
      need_broker "${1:-1}"
      web_url "${1:-1}"
      ;;
    log) do_log "${1:-}" ;;
    unload) do_unload "$@" ;;
    *) die "unknown command '$command'" ;;
  esac
}

main "$@"
