// Package bridgeconfig is the bridge's whole configuration file: the
// top-level keys (listen, data_dir, timezone, log) and the sections, each
// typed and checked by the package it configures (store/storeconfig,
// timeouts, api, app/routes, channels/builtin, callback, mcp,
// internal/edge, app/outboxconfig). Load reads a file strictly
// (internal/config: every unknown key or bad value with its line),
// FromFlags applies the flags of serve and check-config, and Finish fills
// the defaults that depend on other settings and runs every section's
// Validate, returning every problem at once. NewCheckCmd is
// `bridge check-config`.
package bridgeconfig
