# shellcheck shell=bash
# What scripts/pulsar.sh (the standalone) and scripts/pulsar-cluster.sh (two brokers) share: the
# Pulsar distribution, fetched with Maven and unpacked once, and the broker settings the tests rely
# on. Sourced, never run.
#
# The sourcing script sets repo_root and defines say and die (messages carry its own name) before
# sourcing; this file then sets
#   version   RECONSUME_PULSAR_VERSION, default 4.0.8
#   home      RECONSUME_PULSAR_HOME, default <repo>/.pulsar
#   dist      $home/apache-pulsar-$version, the unpacked distribution
# and defines fetch_distribution, set_conf and apply_test_broker_settings.

version=${RECONSUME_PULSAR_VERSION:-4.0.8}
home=${RECONSUME_PULSAR_HOME:-$repo_root/.pulsar}
dist="$home/apache-pulsar-$version"

# fetch_distribution: Maven fetches the server distribution (cached in ~/.m2) and it is unpacked
# into $dist, unless it is there already.
fetch_distribution() {
  [[ -x "$dist/bin/pulsar" ]] && return 0
  command -v mvn >/dev/null || die "mvn is not installed (scripts/install-deps.sh --test installs it)"
  command -v java >/dev/null || die "java is not installed (scripts/install-deps.sh --test installs it)"
  local artifact="org.apache.pulsar:pulsar-server-distribution:$version:tar.gz:bin"
  local download="$home/download"
  mkdir -p "$download"
  say "fetching $artifact with Maven (cached in ~/.m2)"
  mvn -B -q -Dstyle.color=never dependency:copy -Dartifact="$artifact" -DoutputDirectory="$download" \
    -Dmdep.overWriteReleases=true ||
    die "Maven could not fetch $artifact"
  local tarball="$download/pulsar-server-distribution-$version-bin.tar.gz"
  [[ -f "$tarball" ]] || die "Maven did not produce $tarball"
  say "unpacking into $home"
  # Unpack beside the final name and rename, so an interrupted unpack is never taken for a good one.
  local partial="$home/unpacking-$version"
  rm -rf "$partial"
  mkdir -p "$partial"
  tar -xzf "$tarball" -C "$partial"
  mv "$partial/apache-pulsar-$version" "$dist"
  rm -rf "$partial" "$tarball"
}

# set_conf FILE KEY VALUE: replace the key's line, or append it; running it again changes nothing.
set_conf() {
  local file=$1 key=$2 value=$3
  if grep -q "^$key=" "$file"; then
    local escaped=${value//\\/\\\\}
    escaped=${escaped//|/\\|}
    escaped=${escaped//&/\\&}
    sed -i "s|^$key=.*|$key=$escaped|" "$file"
  else
    # The distribution's files do not all end with a newline.
    [[ -z $(tail -c 1 "$file") ]] || echo >>"$file"
    printf '%s=%s\n' "$key" "$value" >>"$file"
  fi
}

# apply_test_broker_settings FILE: the broker settings reconsume's tests rely on, for the
# standalone's standalone.conf and for each cluster broker's broker.conf alike.
apply_test_broker_settings() {
  local conf=$1
  # Delayed delivery every 100 ms and never early, so retry tests can check delays tightly.
  set_conf "$conf" delayedDeliveryTickTimeMillis 100
  set_conf "$conf" isDelayedDeliveryDeliverAtTimeStrict true
  # Topics (retry and dead-letter topics above all) must not vanish between test steps.
  set_conf "$conf" brokerDeleteInactiveTopicsEnabled false
  # Keep every message: dead letters are inspected, replayed and counted after being acknowledged.
  set_conf "$conf" defaultRetentionTimeInMinutes -1
  set_conf "$conf" defaultRetentionSizeInMB -1
  # The transactional mode (publish + acknowledge in one transaction).
  set_conf "$conf" transactionCoordinatorEnabled true
  # One thread replays transaction buffers, not one per core. A broker started on data with many
  # topics recovers each topic's transaction buffer from one reader per namespace, shared and not
  # locked: two threads at once can both be told a snapshot is left and one then waits for it,
  # 30 s, while every topic of the namespace waits behind (no dispatch on a new topic: a retry
  # test's delayed message came 26 s late). Such timeouts after a restart on ≈1,000 topics: 1 in
  # 6 restarts with the default (a thread per core, 2 here), 89 in one with 8, none in 10 with 1.
  set_conf "$conf" numTransactionReplayThreadPoolSize 1
  # Acknowledging one message of a batch must not redeliver its siblings.
  set_conf "$conf" acknowledgmentAtBatchIndexLevelEnabled true
  # Lookups answer with this host: pulsar://localhost:<port> (and for the standalone's secure
  # variant pulsar+ssl://localhost:6651, the name in the test server certificate); the default is
  # the machine's host name.
  set_conf "$conf" advertisedAddress localhost
  # Tests create partitioned topics; auto-created ones stay non-partitioned (Pulsar's default).
  set_conf "$conf" allowAutoTopicCreationType non-partitioned
}
