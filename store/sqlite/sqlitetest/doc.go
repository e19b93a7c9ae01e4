// Package sqlitetest is the set-up that tests of packages above the
// broker start from: a store on a SQLite file in the test's temporary
// directory, and the real broker over it, running until the test ends.
//
// NewBroker opens a fresh file; OpenBroker opens a given one (a second
// instance sharing the file, or a restart); Start does the same without a
// *testing.T, for examples and for tests that stop a bridge mid-way and
// start it again. Each takes functions that adjust the broker's
// configuration (routes, clock, limits, observer, a wrapped store) before
// the broker is built. OpenStore is the store alone.
//
// The broker logs nowhere unless a configuration function sets a logger.
// Cleanup ends the broker's Run, then closes the broker and the store, in
// that order; cleanups the test registers later (an API server over the
// broker) run first.
package sqlitetest
