# Health checks of scripts/pulsar-cluster.sh: ZooKeeper serving, the bookie registered, brokers
# ready and healthy, waiting for them, public/default. Sourced, never run.
#
# Uses the sourcing script's settings (zk_port, bookie_port, logs, start_timeout, cluster_name) and
# functions (say, die, web_url, broker_id, alive, port_in_use, terminate).
# shellcheck shell=bash
# shellcheck disable=SC2154  # the sourcing script's settings

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

# Broker N's registration (an ephemeral node of its ZooKeeper session) is gone. A killed broker's
# stays until its session times out (10 s); a broker started under the same name before then can
# fail to start: it finds the old node, which vanishes while it takes its load manager's lock
# ("NoNode for /loadbalance/brokers/localhost:8090", seen in CI).
broker_unregistered() {
  [[ $(zk_command dump) != *"/loadbalance/brokers/$(broker_id "$1")"* ]]
}

# wait_unregistered N: until broker N's old registration is gone; dies after start_timeout.
wait_unregistered() {
  local deadline=$((SECONDS + start_timeout))
  until broker_unregistered "$1"; do
    ((SECONDS < deadline)) ||
      die "broker $1's previous registration is still in ZooKeeper after ${start_timeout}s"
    sleep 0.5
  done
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
