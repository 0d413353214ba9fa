# `scripts/pulsar-cluster.sh unload <topic> [--to N]`: moves a topic's namespace bundle to the
# other broker through the admin API. Sourced, never run.
#
# Uses the sourcing script's functions (say, die, need_broker, broker_id, broker_ready, web_url).
# shellcheck shell=bash

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
    for attempt in 1 2 3 4 5; do
      [[ $new == "$dest" ]] && break
      # Again after a pause: the leader's stale choice (below) lasts until it reads the old
      # owner's next load report (at most every 5 s, loadBalancerReportUpdateMinIntervalMillis).
      ((attempt == 1)) || { say "$t went back to $new; unloading it again (attempt $attempt)"; sleep 3; }
      local code
      code=$(curl -s -L --max-time 60 -o /dev/null -w '%{http_code}' -X PUT \
        "$admin/admin/v2/namespaces/$ns/$bundle/unload?destinationBroker=$dest" 2>/dev/null) || true
      [[ $code == 204 || $code == 200 ]] || say "unload of bundle $ns/$bundle answered HTTP $code (attempt $attempt)"
      # The destination takes the bundle at once (an authoritative lookup there makes it the
      # owner). The leader gives destinationBroker only to the first lookup after the unload; a
      # second one before the destination owns the bundle (producer and consumer of a client
      # reconnecting, this script) gets the broker the leader chose for the bundle last time,
      # the old owner, until the old owner's next load report (seen in CI: all three attempts
      # of one move).
      curl -s -L --max-time 30 -o /dev/null "http://$dest/lookup/v2/topic/$t?authoritative=true" \
        2>/dev/null || true
      new=$(owner_of "$admin" "$t") || new=unknown
    done
    echo "${t/\//://} $owner -> $new"
    [[ $new == "$dest" ]] || failed=1
  done
  return "$failed"
}
