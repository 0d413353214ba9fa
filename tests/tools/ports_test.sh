#!/usr/bin/env bash
# scripts/lib/ports.sh, against listeners this test starts on ports the kernel chooses: a port is
# in use while something listens on it, and listens_on names the process that does, not another.
set -euo pipefail
# shellcheck source=../../scripts/lib/ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/ports.sh"

fail() {
  echo "ports_test: FAIL: $*" >&2
  exit 1
}

# listen HOST: a listener on HOST that prints its port and waits for its stdin to close.
listener='import socket, sys
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(family)
s.bind((sys.argv[1], 0))
s.listen()
print(s.getsockname()[1], flush=True)
sys.stdin.read()'

check() {
  local host=$1 port pid
  coproc LISTENER { exec python3 -c "$listener" "$host"; }
  pid=$LISTENER_PID
  read -r port <&"${LISTENER[0]}" || fail "no listener on $host"
  port_in_use "$port" || [[ $host == *:* ]] || fail "port $port ($host) not seen in use"
  listens_on "$pid" "$port" || fail "process $pid not seen listening on $host port $port"
  if listens_on "$$" "$port"; then fail "this shell ($$) seen listening on port $port"; fi
  local other=$((port == 65535 ? port - 1 : port + 1))
  if listens_on "$pid" "$other"; then fail "process $pid seen listening on port $other"; fi
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  if listens_on "$pid" "$port"; then fail "process $pid still seen on port $port after it exited"; fi
  if [[ $host != *:* ]] && port_in_use "$port"; then
    fail "port $port still in use after its listener exited"
  fi
  echo "ports_test: $host port $port ok"
}

check 127.0.0.1
# IPv6 where the machine has it (the JVM's listeners often are).
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
  check ::1
fi
