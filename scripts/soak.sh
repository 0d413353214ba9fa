#!/usr/bin/env bash
# The soak run (tests/load/soak.cpp): steady publish / consume / reconsumeLater against the
# standalone for a while, the broker stopped and started again at intervals, the client's resident
# memory and open descriptors sampled; ends with a terminal chart of both and fails when either
# grew, or when a confirmed message has no final outcome. Starts the standalone if needed
# (scripts/with-pulsar.sh) and builds nothing: give it the built reconsume_soak.
#
# Usage: scripts/soak.sh <path to reconsume_soak> [--minutes 30] [--restart-every-s 300]
#                        [--rate 200] [--sample-s 10] [--max-rss-growth-mib 16]
#   e.g. scripts/soak.sh build/tests/reconsume_soak            (30 minutes, a restart every 5)
set -euo pipefail

soak=${1:?usage: $0 <reconsume_soak> [options...]}
shift
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A clean stop and start; the variant (the test configuration) stays what it was.
restart="'$scripts/pulsar.sh' stop >/dev/null && '$scripts/pulsar.sh' start >/dev/null"
exec "$scripts/with-pulsar.sh" "$soak" --restart-command "$restart" "$@"
