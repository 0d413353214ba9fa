# Who serves a local TCP port: the scripts that start brokers check that a port is free before
# they start one, and that the process answering on it is the one they started. Sourced.
# shellcheck shell=bash

# port_in_use PORT: something accepts connections on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# listens_on PID PORT: process PID holds the socket listening on PORT (the listening sockets of the
# port, IPv4 and IPv6, from /proc/net; their inodes among the process's descriptors).
listens_on() {
  local pid=$1 port inodes inode
  port=$(printf ':%04X' "$2")
  inodes=$(awk -v port="$port" '$4 == "0A" && substr($2, length($2) - 4) == port { print $10 }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  for inode in $inodes; do
    find "/proc/$pid/fd" -maxdepth 1 -lname "socket:\[$inode\]" 2>/dev/null | grep -q . && return 0
  done
  return 1
}
