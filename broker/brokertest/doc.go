// Package brokertest holds what tests of the broker, the stores and the
// channels share: the store conformance suite (TestStore), a recording
// channel that stands in for a chat platform in broker-level tests, a
// running broker on it (StartBroker, WaitCopies), and the inbox the
// stores' inbox benchmarks read (FillInbox).
package brokertest
