// Package brokertest holds what tests of the broker, the stores and the
// channels share: the store conformance suite (TestStore) and a recording
// channel that stands in for a chat platform in broker-level tests.
package brokertest
