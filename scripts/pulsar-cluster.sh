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
#   start-broker N  start broker N again and wait until it is ready and healthy.
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
#   (warm): 15-17 s; start-broker after kill-broker: 4-8 s; stop: 6-6.5 s; topics of a killed
#   broker are served by the other one after 10-11 s (its ZooKeeper session timeout).
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

say() { echo "pulsar-cluster.sh: $*" >&2; }
die() {
  say "ERROR: $*"
  exit 1
}

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
# Configuration: written from the distribution's own files at every start.

write_config() {
  mkdir -p "$conf_dir"
  local zk="$conf_dir/zookeeper.conf"
  cp "$dist/conf/zookeeper.conf" "$zk"
  set_conf "$zk" dataDir "$data_dir/zookeeper"
  set_conf "$zk" clientPort "$zk_port"
  # No admin server (its default port 9990 is the standalone's concern, not ours) and no
  # Prometheus endpoint (default 8000).
  set_conf "$zk" admin.enableServer false
  sed -i '/^metricsProvider\./d' "$zk"
  # A test cluster: a process crash loses nothing without fsync (the page cache survives it).
  set_conf "$zk" forceSync no

  local bk="$conf_dir/bookkeeper.conf"
  cp "$dist/conf/bookkeeper.conf" "$bk"
  set_conf "$bk" bookiePort "$bookie_port"
  set_conf "$bk" advertisedAddress localhost
  set_conf "$bk" allowLoopback true
  set_conf "$bk" zkServers "localhost:$zk_port"
  set_conf "$bk" zkTimeout 10000
  set_conf "$bk" journalDirectory "$data_dir/bookie/journal"
  set_conf "$bk" ledgerDirectories "$data_dir/bookie/ledgers"
  set_conf "$bk" httpServerEnabled false
  set_conf "$bk" statsProviderClass org.apache.bookkeeper.stats.NullStatsProvider
  set_conf "$bk" autoRecoveryDaemonEnabled false
  # As the standalone's bookie: no fsync per entry, small RocksDB, full disks tolerated.
  set_conf "$bk" journalSyncData false
  set_conf "$bk" dbStorage_writeCacheMaxSizeMb 32
  set_conf "$bk" dbStorage_readAheadCacheMaxSizeMb 32
  set_conf "$bk" dbStorage_rocksDB_blockCacheSize 16777216
  set_conf "$bk" dbStorage_rocksDB_writeBufferSizeMB 4
  set_conf "$bk" dbStorage_rocksDB_sstSizeInMB 4
  set_conf "$bk" dbStorage_rocksDB_blockSize 4096
  set_conf "$bk" diskUsageThreshold 0.99
  set_conf "$bk" diskUsageWarnThreshold 0.99

  local n
  for n in 1 2; do
    local conf="$conf_dir/broker-$n.conf" i
    i=$(broker_index "$n")
    cp "$dist/conf/broker.conf" "$conf"
    apply_test_broker_settings "$conf"
    set_conf "$conf" clusterName "$cluster_name"
    set_conf "$conf" metadataStoreUrl "zk:localhost:$zk_port"
    set_conf "$conf" configurationMetadataStoreUrl "zk:localhost:$zk_port"
    set_conf "$conf" brokerServicePort "${broker_ports[$i]}"
    set_conf "$conf" webServicePort "${web_ports[$i]}"
    # One bookie.
    set_conf "$conf" managedLedgerDefaultEnsembleSize 1
    set_conf "$conf" managedLedgerDefaultWriteQuorum 1
    set_conf "$conf" managedLedgerDefaultAckQuorum 1
    set_conf "$conf" bookkeeperClientMinNumRacksPerWriteQuorum 1
    # Never quarantine the only bookie.
    set_conf "$conf" bookkeeperClientHealthCheckEnabled false
    # Ownership moves only when a test unloads a bundle or a broker goes away.
    set_conf "$conf" loadBalancerSheddingEnabled false
    set_conf "$conf" loadBalancerAutoBundleSplitEnabled false
    set_conf "$conf" loadBalancerAutoUnloadSplitBundlesEnabled false
    # A killed broker's ZooKeeper session (and with it its bundles) expires after 10 s, not 30 s.
    set_conf "$conf" metadataStoreSessionTimeoutMillis 10000
    set_conf "$conf" brokerShutdownTimeoutMs 20000
    set_conf "$conf" managedLedgerCacheSizeMB 32
    set_conf "$conf" narExtractionDirectory "$data_dir/broker-$n/nar"
  done
}

# ---------------------------------------------------------------------------------------------
# Processes

pid_file() { echo "$run/$1.pid"; }

# running_pid NAME: the pid of our process NAME, if it runs.
running_pid() {
  local file pid
  file=$(pid_file "$1")
  [[ -f "$file" ]] || return 1
  pid=$(<"$file")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  # A recycled pid belongs to someone else: only our process with our configuration counts.
  local cmdline
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$(main_class "$1")"* && $cmdline == *"$(conf_file "$1")"* ]] || return 1
  echo "$pid"
}

# alive NAME: the process started as NAME is still there (right after launch it may not be java
# yet, so running_pid would not recognise it).
alive() {
  local file
  file=$(pid_file "$1")
  [[ -f "$file" ]] && kill -0 "$(<"$file")" 2>/dev/null
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# launch NAME ARGS...: start `bin/pulsar ARGS...` as NAME in the background, its output appended to
# logs/NAME.out, its pid in run/NAME.pid.
launch() {
  local name=$1
  shift
  local port
  for port in $(ports_of "$name"); do
    port_in_use "$port" && die "port $port (for $name) is in use by a process this script did not start"
  done
  mkdir -p "$logs" "$run" "$data_dir/$name/tmp"
  local out="$logs/$name.out" mem=$broker_mem
  case $name in
    zookeeper) mem=$zk_mem ;;
    bookie) mem=$bookie_mem ;;
  esac
  echo "=== $(date '+%F %T') pulsar-cluster.sh: starting $name" >>"$out"
  # setsid: the process outlives this shell and gets no signal meant for its process group;
  # bin/pulsar execs java, so $! is the JVM's pid.
  (
    exec 9>&- # must not hold this script's lock
    cd "$dist"
    exec env PULSAR_MEM="$mem" BOOKIE_MEM="$mem" \
      PULSAR_GC="-XX:+UseG1GC -XX:+PerfDisableSharedMem" \
      PULSAR_GC_LOG="-Xlog:gc:file=$logs/$name-gc.log:time,uptime:filecount=2,filesize=10M" \
      PULSAR_EXTRA_OPTS="-Dpulsar.allocator.exit_on_oom=true -Dio.netty.recycler.maxCapacityPerThread=4096 -Djava.io.tmpdir=$data_dir/$name/tmp" \
      PULSAR_LOG_DIR="$logs" PULSAR_LOG_FILE="$name.log" \
      PULSAR_ZK_CONF="$conf_dir/zookeeper.conf" PULSAR_BOOKKEEPER_CONF="$conf_dir/bookkeeper.conf" \
      PULSAR_BROKER_CONF="$(conf_file "$name")" \
      setsid "$@" </dev/null >>"$out" 2>&1
  ) &
  local pid=$! waited=0
  echo "$pid" >"$(pid_file "$name")"
  # Until bin/pulsar has exec'd java: from then on running_pid knows the process (stop, kill-broker).
  until running_pid "$name" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || return 0 # it died: wait_until reports it with its output
    ((waited < 600)) || die "$name (pid $pid) did not exec java within 60 s"
    sleep 0.1
    waited=$((waited + 1))
  done
}

# check_ports NAME...: die when a port of one that is not running is taken by someone else, before
# anything is started.
check_ports() {
  local name port
  for name in "$@"; do
    running_pid "$name" >/dev/null && continue
    for port in $(ports_of "$name"); do
      port_in_use "$port" && die "port $port (for $name) is in use by a process this script did not start"
    done
  done
  return 0
}

# terminate NAME...: SIGTERM to each that runs, SIGKILL after the stop timeout, wait until gone.
terminate() {
  local name pid pids=() names=()
  for name in "$@"; do
    if pid=$(running_pid "$name"); then
      say "stopping $name (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
      names+=("$name")
    fi
    rm -f "$(pid_file "$name")"
  done
  local deadline=$((SECONDS + stop_timeout)) i
  for i in "${!pids[@]}"; do
    while kill -0 "${pids[$i]}" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      say "${names[$i]} still runs after ${stop_timeout}s: SIGKILL"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
    fi
    wait_gone "${pids[$i]}"
  done
}

# wait_gone PID: until the process has exited (up to 30 s), so its ports are free again.
wait_gone() {
  local waited=0
  while kill -0 "$1" 2>/dev/null && ((waited < 300)); do
    sleep 0.1
    waited=$((waited + 1))
  done
}

# ---------------------------------------------------------------------------------------------
# Health

# zk_command WORD: a ZooKeeper four-letter command (all are allowed by bin/pulsar zookeeper).
zk_command() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$zk_port" || exit 1
    printf '%s' "$1" >&3
    timeout 5 cat <&3
  ) 2>/dev/null
}

zk_ready() { [[ $(zk_command srvr) == *"Mode: "* ]]; }

# The bookie has registered itself as writable (an ephemeral node of its ZooKeeper session).
bookie_ready() {
  alive bookie && port_in_use "$bookie_port" &&
    [[ $(zk_command dump) == *"/ledgers/available/localhost:$bookie_port"* ]]
}

http_code() {
  curl -s -o /dev/null -w '%{http_code}' --max-time "${3:-10}" "$1$2" 2>/dev/null || true
}

broker_ready() { [[ $(http_code "$(web_url "$1")" /admin/v2/brokers/ready 5) == 200 ]]; }

# ready, and a message written to and read from the broker's own health-check topic (the bookie
# takes writes).
broker_healthy() {
  broker_ready "$1" && [[ $(http_code "$(web_url "$1")" "/admin/v2/brokers/health?topicVersion=V2") == 200 ]]
}

# wait_until WHAT NAME CHECK...: until CHECK succeeds; dies when NAME exits or the timeout passes.
wait_until() {
  local what=$1 name=$2 deadline=$((SECONDS + start_timeout))
  shift 2
  while ! "$@"; do
    if ! alive "$name"; then
      fail_start "$name exited before it was $what" "$name"
    fi
    ((SECONDS < deadline)) || fail_start "$name was not $what within ${start_timeout}s" "$name"
    sleep 0.5
  done
}

# fail_start WHY NAME: the tail of NAME's output, then a non-zero exit. What runs keeps running
# (`stop` or `start` again); a half-started broker is stopped.
fail_start() {
  say "ERROR: $1; the last lines of $logs/$2.out:"
  tail -n 40 "$logs/$2.out" >&2 || true
  [[ $2 == broker-* ]] && terminate "$2"
  die "the cluster did not start"
}

ensure_default_namespace() {
  local admin body
  admin=$(web_url 1)
  broker_ready 1 || admin=$(web_url 2)
  body=$(curl -s -L --max-time 10 "$admin/admin/v2/namespaces/public" 2>/dev/null) || body=
  [[ $body == *'"public/default"'* ]] && return 0
  # initialize-cluster-metadata creates them; this is for metadata made otherwise.
  say "creating tenant public and namespace public/default"
  curl -s -L --max-time 10 -o /dev/null -X PUT -H 'Content-Type: application/json' \
    -d "{\"allowedClusters\":[\"$cluster_name\"]}" "$admin/admin/v2/tenants/public" || true
  curl -s -L --max-time 10 -o /dev/null -X PUT "$admin/admin/v2/namespaces/public/default" || true
  body=$(curl -s -L --max-time 10 "$admin/admin/v2/namespaces/public" 2>/dev/null) || body=
  [[ $body == *'"public/default"'* ]] || die "could not create public/default"
}

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

# topic_path TOPIC: "persistent/tenant/ns/name" for a full or short (public/default) name.
topic_path() {
  local topic=$1 domain=persistent
  if [[ $topic == *://* ]]; then
    domain=${topic%%://*}
    topic=${topic#*://}
  fi
  [[ $topic == */*/* ]] || topic="public/default/$topic"
  echo "$domain/$topic"
}

# owner_of ADMIN PATH: the broker id (localhost:<web port>) that owns the topic, after a lookup
# (which assigns an unowned bundle).
owner_of() {
  local body url
  body=$(curl -s -L --max-time 30 "$1/lookup/v2/topic/$2" 2>/dev/null) || return 1
  url=$(sed -n 's/.*"httpUrl" *: *"http:\/\/\([^"]*\)".*/\1/p' <<<"$body")
  [[ -n $url ]] || return 1
  echo "$url"
}

do_unload() {
  local topic=${1:-} to=
  [[ -n $topic ]] || die "usage: unload <topic> [--to N]"
  shift
  if [[ ${1:-} == --to ]]; then
    need_broker "${2:-}"
    to=$(broker_id "$2")
  elif [[ -n ${1:-} ]]; then
    die "unload: unknown option '$1'"
  fi
  local admin path partitions
  if broker_ready 1; then admin=$(web_url 1); elif broker_ready 2; then admin=$(web_url 2); else
    die "no broker is ready"
  fi
  path=$(topic_path "$topic")
  partitions=$(curl -s -L --max-time 10 "$admin/admin/v2/$path/partitions" 2>/dev/null |
    sed -n 's/.*"partitions" *: *\([0-9]*\).*/\1/p')
  local targets=("$path") i
  if [[ ${partitions:-0} -gt 0 ]]; then
    targets=()
    for ((i = 0; i < partitions; i++)); do targets+=("$path-partition-$i"); done
  fi
  local failed=0 t
  for t in "${targets[@]}"; do
    local owner bundle dest ns new attempt
    owner=$(owner_of "$admin" "$t") || die "lookup of $t failed"
    bundle=$(curl -s -L --max-time 10 "$admin/lookup/v2/topic/$t/bundle" 2>/dev/null | tr -d '"')
    [[ $bundle == 0x*_0x* ]] || die "no bundle for $t ($bundle)"
    dest=$to
    if [[ -z $dest ]]; then
      if [[ $owner == "$(broker_id 1)" ]]; then dest=$(broker_id 2); else dest=$(broker_id 1); fi
    fi
    ns=${t#*/}
    ns=${ns%/*}
    new=$owner
    for attempt in 1 2 3; do
      [[ $new == "$dest" ]] && break
      local code
      code=$(curl -s -L --max-time 60 -o /dev/null -w '%{http_code}' -X PUT \
        "$admin/admin/v2/namespaces/$ns/$bundle/unload?destinationBroker=$dest" 2>/dev/null) || true
      [[ $code == 204 || $code == 200 ]] || say "unload of bundle $ns/$bundle answered HTTP $code (attempt $attempt)"
      new=$(owner_of "$admin" "$t") || new=unknown
    done
    echo "${t/\//://} $owner -> $new"
    [[ $new == "$dest" ]] || failed=1
  done
  return "$failed"
}

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
