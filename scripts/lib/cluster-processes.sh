# The processes of scripts/pulsar-cluster.sh: pid files, recognising our own processes, launching
# one in the background, stopping them. Sourced, never run.
#
# Uses the sourcing script's settings (run, logs, data_dir, conf_dir, dist, the *_mem settings,
# stop_timeout) and functions (say, die, main_class, conf_file, ports_of).
# shellcheck shell=bash
# shellcheck disable=SC2154  # the sourcing script's settings

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
    # shellcheck disable=SC2164  # the sourcing script runs with set -e
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
