# The configuration of scripts/pulsar-cluster.sh's processes: zookeeper.conf, bookkeeper.conf,
# broker-1.conf and broker-2.conf in $conf_dir, written from the distribution's own files. Sourced.
#
# Uses the sourcing script's settings (dist, conf_dir, data_dir, zk_port, bookie_port, broker_ports,
# web_ports, cluster_name) and functions (set_conf, apply_test_broker_settings, broker_index).
# shellcheck shell=bash
# shellcheck disable=SC2154  # the sourcing script's settings

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
