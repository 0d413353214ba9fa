#!/usr/bin/env bash
# A Pulsar standalone for reconsume's integration and interop tests, on localhost.
#
# Usage: scripts/pulsar.sh start [--clean] [--secure <dir> | --conf <key>=<value>...]
#        scripts/pulsar.sh stop | kill | status [--secure <dir> | --conf <key>=<value>...]
#        scripts/pulsar.sh admin-url | service-url | variant | log | pid
#
#   start       download (Maven, cached in ~/.m2) and unpack the distribution once, write the test
#               configuration, start `bin/pulsar standalone -nfw -nss` in the background and wait
#               until the broker is ready and public/default exists. A no-op when the same variant
#               is already running and healthy; restarts it when the other variant runs.
#               --clean stops the broker and wipes that variant's data first (otherwise data
#               survives stop/start and kill/start).
#               --conf key=value (repeatable; also RECONSUME_PULSAR_EXTRA_CONF="key=value ..."):
#               broker settings on top of the test settings, for the plain broker only. It is
#               then the variant "plain+conf key=value ...", with the plain variant's data (a test
#               of a broker configured otherwise, e.g. allowAutoTopicCreationType=partitioned).
#   stop        SIGTERM, wait up to RECONSUME_PULSAR_STOP_TIMEOUT s (default 60), then SIGKILL.
#   kill        SIGKILL at once (fault tests: nothing acknowledged by the broker may be lost).
#   status      exit 0 when the broker runs and is healthy (with --secure <dir>: the secure
#               variant of that directory); prints what runs.
#   admin-url   http://localhost:8080, or https://localhost:8443 while the secure variant runs.
#   service-url pulsar://localhost:6650, or pulsar+ssl://localhost:6651 while the secure variant runs.
#   variant     prints what runs: "none", "plain", "plain+conf <key=value ...>" or "secure <dir>"
#               (scripts/with-pulsar.sh uses it).
#   log         prints the path of the broker's output file (the ten before it beside it, dated).
#   pid         prints the running broker's process id (fault tests stop and continue it); exit 1
#               when none runs.
#
# Environment: RECONSUME_PULSAR_VERSION (default 4.0.8), RECONSUME_PULSAR_HOME (default
# <repo>/.pulsar), RECONSUME_PULSAR_START_TIMEOUT (seconds, default 180), PULSAR_MEM (default a
# 1 GiB heap).
#
# The secure variant (--secure <dir>) serves TLS on 6651 (binary) and 8443 (web) and requires a
# token on every port, including the plain 6650 and 8080. The script creates what is missing in
# <dir> (and keeps what is there, so tests can rely on stable files):
#   <dir>/ca.pem, ca.key              the CA that signed the server certificate
#   <dir>/server.pem, server.key      the broker's certificate: subjectAltName DNS:localhost only
#                                     (no IP SAN: 127.0.0.1 is a host-name mismatch)
#   <dir>/wrong-ca.pem, wrong-ca.key  an unrelated CA (verification against it must fail)
#   <dir>/secret.key                  the token signing key (HS256, raw bytes)
#   <dir>/token.txt                   a valid token for the super-user subject "reconsume-admin"
#   <dir>/other-secret.key            an unrelated signing key
#   <dir>/bad-token.txt               a token for "reconsume-admin" signed with other-secret.key
# Token files hold the bare token, without a trailing newline.
#
# Layout of RECONSUME_PULSAR_HOME: apache-pulsar-<version>/ (the distribution), data/plain and
# data/secure (bookkeeper and metadata of each variant), logs/, run/ (pid file and variant).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/say.sh
source "$script_dir/lib/say.sh"
repo_root=$(cd "$script_dir/.." && pwd)
# The distribution (version, home, dist, fetch_distribution) and the broker settings the tests
# rely on (set_conf, apply_test_broker_settings), shared with scripts/pulsar-cluster.sh.
# shellcheck source-path=SCRIPTDIR source=lib/pulsar-dist.sh
source "$script_dir/lib/pulsar-dist.sh"
logs="$home/logs"
run="$home/run"
pid_file="$run/pulsar.pid"
variant_file="$run/variant"  # "plain", "plain+conf <key=value ...>" or "secure <dir>"
start_timeout=${RECONSUME_PULSAR_START_TIMEOUT:-180}
stop_timeout=${RECONSUME_PULSAR_STOP_TIMEOUT:-60}
web_port=8080
web_tls_port=8443
broker_port=6650
broker_tls_port=6651
super_user=reconsume-admin

# ---------------------------------------------------------------------------------------------
# Distribution and configuration

# write_test_config VARIANT: the test settings, and for "plain+conf k=v ..." those settings too.
write_test_config() {
  local variant=$1 conf="$dist/conf/standalone.conf" setting
  # Always from the distribution's original, so the result is the same however often it runs.
  [[ -f "$conf.orig" ]] || cp "$conf" "$conf.orig"
  cp "$conf.orig" "$conf"
  apply_test_broker_settings "$conf"
  if [[ $variant == plain+conf\ * ]]; then
    for setting in ${variant#plain+conf }; do
      [[ $setting == ?*=* ]] || die "--conf '$setting' is not key=value"
      set_conf "$conf" "${setting%%=*}" "${setting#*=}"
    done
  fi
}

# ---------------------------------------------------------------------------------------------
# The secure variant: make_secure_material DIR, write_secure_config DIR

# shellcheck source-path=SCRIPTDIR source=lib/pulsar-secure.sh
source "$script_dir/lib/pulsar-secure.sh"

# ---------------------------------------------------------------------------------------------
# Ports: port_in_use PORT, listens_on PID PORT

# shellcheck source-path=SCRIPTDIR source=lib/ports.sh
source "$script_dir/lib/ports.sh"

# ---------------------------------------------------------------------------------------------
# Process state

running_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid
  pid=$(<"$pid_file")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  # A recycled pid belongs to someone else: only a Pulsar standalone counts.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q PulsarStandaloneStarter || return 1
  echo "$pid"
}

current_variant() {
  if running_pid >/dev/null && [[ -f "$variant_file" ]]; then cat "$variant_file"; else echo none; fi
}

# http_ok VARIANT PATH: GET the admin path; succeeds on 200.
http_ok() {
  local variant=$1 path=$2 args=(-s -o /dev/null -w '%{http_code}' --max-time 10)
  local url="http://localhost:$web_port$path"
  if [[ $variant == secure\ * ]]; then
    local dir=${variant#secure }
    url="https://localhost:$web_tls_port$path"
    args+=(--cacert "$dir/ca.pem" -H "Authorization: Bearer $(<"$dir/token.txt")")
  fi
  [[ $(curl "${args[@]}" "$url" 2>/dev/null) == 200 ]]
}

healthy() {
  local variant=$1
  http_ok "$variant" /admin/v2/brokers/ready || return 1
  # public/default is created by the standalone after the broker answers "ready".
  local body args=(-s --max-time 5) url="http://localhost:$web_port/admin/v2/namespaces/public"
  if [[ $variant == secure\ * ]]; then
    local dir=${variant#secure }
    url="https://localhost:$web_tls_port/admin/v2/namespaces/public"
    args+=(--cacert "$dir/ca.pem" -H "Authorization: Bearer $(<"$dir/token.txt")")
  fi
  body=$(curl "${args[@]}" "$url" 2>/dev/null) || return 1
  [[ $body == *'"public/default"'* ]] || return 1
  # "ready" comes before the bookie takes writes (after a kill -9, topics failed to load for a
  # while with "Not enough non-faulty bookies"); the health check writes and reads a topic.
  http_ok "$variant" "/admin/v2/brokers/health?topicVersion=V2"
}

# ---------------------------------------------------------------------------------------------
# Commands

do_stop() {
  local signal=${1:-TERM} pid
  if ! pid=$(running_pid); then
    rm -f "$pid_file" "$variant_file"
    say "not running"
    return 0
  fi
  if [[ $signal == KILL ]]; then
    kill -KILL "$pid" 2>/dev/null || true
  else
    say "stopping (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null && ((waited < stop_timeout * 10)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "still running after ${stop_timeout}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  # Wait until the process is gone, so the ports are free for the next start.
  local waited=0
  while kill -0 "$pid" 2>/dev/null && ((waited < 300)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$pid_file" "$variant_file"
  say "stopped (pid $pid, SIG$signal)"
}

do_start() {
  local clean=$1 variant=$2
  local current
  current=$(current_variant)
  if [[ $current == "$variant" && $clean == no ]]; then
    if wait_healthy "$variant" "$(<"$pid_file")"; then
      say "already running ($variant, pid $(<"$pid_file"))"
      return 0
    fi
    fail_start "the running broker (pid $(<"$pid_file")): $unhealthy_because"
  fi
  if [[ $current != none ]]; then
    if [[ $current == "$variant" ]]; then
      say "restarting with clean data"
    else
      say "restarting: '$current' runs, '$variant' is wanted"
    fi
    do_stop TERM
  fi
  rm -f "$pid_file" "$variant_file"
  local port
  for port in $web_port $broker_port $web_tls_port $broker_tls_port; do
    if port_in_use "$port"; then
      die "port $port is in use by another process (not a broker this script started)"
    fi
  done

  fetch_distribution
  write_test_config "$variant"
  local conf="$dist/conf/standalone.conf" data="$home/data/plain"
  if [[ $variant == secure\ * ]]; then
    local dir=${variant#secure }
    make_secure_material "$dir"
    write_secure_config "$dir"
    conf="$dist/conf/standalone-secure.conf"
    data="$home/data/secure"
  fi
  if [[ $clean == yes ]]; then
    say "wiping $data"
    rm -rf "$data"
  fi
  mkdir -p "$data" "$logs" "$run"

  say "starting Pulsar $version standalone ($variant)"
  local out="$logs/standalone.out"
  # The previous broker's output is kept, the newest ten (standalone.<UTC time>.out): a test that
  # failed against that broker is explained there, and this start would otherwise wipe it.
  if [[ -s $out ]]; then
    mv -f "$out" "$logs/standalone.$(date -u +%Y%m%dT%H%M%SZ).out"
    local kept=("$logs"/standalone.*.out) # in time order: the names sort as the times do
    if ((${#kept[@]} > 10)); then rm -f "${kept[@]:0:${#kept[@]}-10}"; fi
  fi
  : >"$out"
  # setsid: the broker outlives the shell that started it and gets no signal meant for that
  # shell's process group; bin/pulsar execs java, so $! is the broker's pid.
  (
    exec 9>&- # the broker must not hold this script's lock
    cd "$dist"
    PULSAR_MEM=${PULSAR_MEM:-"-Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g"} \
      PULSAR_LOG_DIR="$logs" PULSAR_STANDALONE_CONF="$conf" \
      exec setsid bin/pulsar standalone -nfw -nss \
      --bookkeeper-dir "$data/bookkeeper" --metadata-dir "$data/metadata" \
      </dev/null >>"$out" 2>&1
  ) &
  local pid=$!
  echo "$pid" >"$pid_file"
  echo "$variant" >"$variant_file"
  wait_healthy "$variant" "$pid" || fail_start "$unhealthy_because"
  say "ready ($variant, pid $pid, $(admin_url), $(service_url))"
}

# fail_start WHY: the log's tail, the broker stopped, a non-zero exit.
fail_start() {
  say "ERROR: $1; the last lines of $logs/standalone.out:"
  tail -n 60 "$logs/standalone.out" >&2 || true
  do_stop TERM || true
  die "Pulsar standalone failed to start"
}

# wait_healthy VARIANT PID: until healthy, the process dies, or the start timeout passes; on
# failure, unhealthy_because says which.
unhealthy_because=""
wait_healthy() {
  local variant=$1 pid=$2 deadline=$((SECONDS + start_timeout)) port=$web_port
  [[ $variant == secure\ * ]] && port=$web_tls_port
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      unhealthy_because="the broker process $pid exited"
      port_in_use "$port" && unhealthy_because+=", and another process serves port $port"
      return 1
    fi
    # Another broker that took the ports while this one started would answer the same checks
    # (this one then exits, unable to bind): healthy only if the answer came from this process.
    healthy "$variant" && listens_on "$pid" "$port" && return 0
    sleep 0.5
  done
  unhealthy_because="Pulsar did not become healthy within ${start_timeout}s"
  return 1
}

admin_url() {
  if [[ $(current_variant) == secure\ * ]]; then
    echo "https://localhost:$web_tls_port"
  else
    echo "http://localhost:$web_port"
  fi
}

service_url() {
  if [[ $(current_variant) == secure\ * ]]; then
    echo "pulsar+ssl://localhost:$broker_tls_port"
  else
    echo "pulsar://localhost:$broker_port"
  fi
}

do_status() {
  local wanted=$1 current pid
  current=$(current_variant)
  if [[ $current == none ]]; then
    say "not running"
    return 1
  fi
  pid=$(<"$pid_file")
  if [[ -n $wanted && $wanted != "$current" ]]; then
    say "running as '$current' (pid $pid), not as '$wanted'"
    return 1
  fi
  if healthy "$current"; then
    say "running and healthy ($current, pid $pid, $(admin_url), $(service_url))"
    return 0
  fi
  say "running but not healthy ($current, pid $pid); see $logs/standalone.out"
  return 1
}

main() {
  local command=${1:-}
  [[ -n $command ]] ||
    die "usage: $0 start|stop|kill|status|admin-url|service-url|variant|log|pid [options]"
  shift
  local clean=no variant=plain extra=()
  # shellcheck disable=SC2206 # words on purpose: "key=value key=value"
  [[ -z ${RECONSUME_PULSAR_EXTRA_CONF:-} ]] || extra=($RECONSUME_PULSAR_EXTRA_CONF)
  while (($#)); do
    case $1 in
      --clean) clean=yes ;;
      --conf)
        [[ ${2:-} == ?*=* ]] || die "--conf needs key=value, not '${2:-}'"
        extra+=("$2")
        shift
        ;;
      --secure)
        [[ -n ${2:-} ]] || die "--secure needs a directory"
        variant="secure $(realpath -m "$2")"
        shift
        ;;
      *) die "unknown option '$1'" ;;
    esac
    shift
  done
  if ((${#extra[@]})); then
    [[ $variant == plain ]] || die "--conf is for the plain broker only, not with --secure"
    variant="plain+conf ${extra[*]}"
  fi
  case $command in
    start | stop | kill)
      # One start, stop or kill at a time: parallel test runs share one broker.
      mkdir -p "$run"
      exec 9>"$run/lock"
      flock 9
      ;;
  esac
  case $command in
    start) do_start "$clean" "$variant" ;;
    stop) do_stop TERM ;;
    kill) do_stop KILL ;;
    status)
      if [[ $variant == plain ]]; then do_status ""; else do_status "$variant"; fi
      ;;
    admin-url) admin_url ;;
    service-url) service_url ;;
    variant) current_variant ;;
    log) echo "$logs/standalone.out" ;;
    pid) running_pid || die "no broker runs" ;;
    *) die "unknown command '$command' (start|stop|kill|status|admin-url|service-url|variant|log|pid)" ;;
  esac
}

main "$@"
