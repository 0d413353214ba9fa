#!/usr/bin/env bash
# Runs a command against the two-broker Pulsar cluster of scripts/pulsar-cluster.sh: starts it,
# runs the command, and when the command ends (or this script is interrupted or the start fails)
# stops the cluster again. A cluster that already ran before is left running, with any broker
# the command killed started again (so calls nest, as with scripts/with-pulsar.sh). Exits with
# the command's exit code; exits non-zero without running the command when the cluster does not
# start.
#
# Usage: scripts/with-pulsar-cluster.sh [--clean] <command> [args...]
# The command sees:
#   RECONSUME_CLUSTER_URL           pulsar://localhost:6660,localhost:6662 (both brokers)
#   RECONSUME_CLUSTER_ADMIN_URL     http://localhost:8090 (broker 1's admin API)
#   RECONSUME_CLUSTER_ADMIN_URL_1, RECONSUME_CLUSTER_ADMIN_URL_2   each broker's admin API
#   RECONSUME_CLUSTER_BROKER_URL_1, RECONSUME_CLUSTER_BROKER_URL_2 each broker's binary URL
#   RECONSUME_CLUSTER_SCRIPT        the path of scripts/pulsar-cluster.sh (kill-broker N,
#                                   start-broker N, unload <topic> ... for fault tests)
set -euo pipefail

cluster="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pulsar-cluster.sh"
start_args=()
while (($#)); do
  case $1 in
    --clean) start_args+=(--clean) ;;
    --) shift; break ;;
    *) break ;;
  esac
  shift
done
if (($# == 0)); then
  echo "usage: $0 [--clean] <command> [args...]" >&2
  exit 2
fi

before=none
[[ -z $("$cluster" pids) ]] || before=running

# shellcheck disable=SC2317  # runs from the EXIT trap
restore() {
  if [[ $before == none ]]; then
    "$cluster" stop
  else
    "$cluster" start >/dev/null
  fi
}
trap 'restore || echo "with-pulsar-cluster.sh: could not put the cluster back ($before)" >&2' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start prints the service URL on stdout: keep stdout for the command.
"$cluster" start "${start_args[@]}" >/dev/null
RECONSUME_CLUSTER_URL=$("$cluster" service-url)
RECONSUME_CLUSTER_ADMIN_URL=$("$cluster" admin-url)
RECONSUME_CLUSTER_ADMIN_URL_1=$("$cluster" admin-url 1)
RECONSUME_CLUSTER_ADMIN_URL_2=$("$cluster" admin-url 2)
RECONSUME_CLUSTER_BROKER_URL_1=$("$cluster" broker-url 1)
RECONSUME_CLUSTER_BROKER_URL_2=$("$cluster" broker-url 2)
RECONSUME_CLUSTER_SCRIPT=$cluster
export RECONSUME_CLUSTER_URL RECONSUME_CLUSTER_ADMIN_URL RECONSUME_CLUSTER_ADMIN_URL_1 \
  RECONSUME_CLUSTER_ADMIN_URL_2 RECONSUME_CLUSTER_BROKER_URL_1 RECONSUME_CLUSTER_BROKER_URL_2 \
  RECONSUME_CLUSTER_SCRIPT

set +e
"$@"
status=$?
set -e
exit "$status"
