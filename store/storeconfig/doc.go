// Package storeconfig is the store section of the configuration file and
// opens the store it names: SQLite in the data directory (the default, or
// store.sqlite.path, or a sqlite:/// store.url), or Redis (store.redis, or
// a redis:// or rediss:// store.url), with the elector that goes with it.
// It sits beside the store drivers so that the broker, which defines what
// a store must do, imports none of them.
package storeconfig
