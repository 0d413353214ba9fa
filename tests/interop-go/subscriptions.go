package main

import (
	"strings"

	"github.com/apache/pulsar-client-go/pulsar"
)

// subscriptionType reads --type (default shared: Pulsar delays delivery on Shared subscriptions
// only, and the Go client subscribes to the retry topic with the type of the main subscription).
func subscriptionType(opts options) (pulsar.SubscriptionType, string, error) {
	text := opts.text("type", "shared")
	switch strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(text)) {
	case "shared":
		return pulsar.Shared, "shared", nil
	case "exclusive":
		return pulsar.Exclusive, "exclusive", nil
	case "failover":
		return pulsar.Failover, "failover", nil
	case "keyshared":
		return pulsar.KeyShared, "key_shared", nil
	}
	return 0, "", usagef("--type '%s' is not one of shared, exclusive, failover, key_shared", text)
}

// initialPosition reads --initial-position (default earliest).
func initialPosition(opts options) (pulsar.SubscriptionInitialPosition, error) {
	switch text := opts.text("initial-position", "earliest"); text {
	case "earliest":
		return pulsar.SubscriptionPositionEarliest, nil
	case "latest":
		return pulsar.SubscriptionPositionLatest, nil
	default:
		return 0, usagef("--initial-position '%s' is not 'earliest' or 'latest'", text)
	}
}
