// Package api is the agent-facing HTTP API v1 of askbridge: asking
// (blocking up to a bound, or in pending mode), getting with long-polls,
// listing for recovery, cancelling, the files people sent with their
// answers (GET /v1/questions/{id}/attachments/{n}), the text-command door
// for text-only channels, and health, readiness and Prometheus metrics.
//
// Every request is authenticated with a bearer key from the configuration:
// agent keys for the question calls, responder keys for /v1/commands. Each
// agent sees only its own questions. With no key configured, the server is
// meant for loopback only (cmd/bridge refuses other listen addresses) and
// every caller is the agent "local".
//
// The configuration sections the API reads are typed and checked here
// (keys_settings.go, settings.go): agents and responders with their keys
// (ValidateKeys: names, set variables, lengths beyond loopback, no key
// shared), limits, and metrics, whose own listener ServeMetrics starts.
//
// Errors are JSON: {"error":{"code","message","field"}}, with 400 naming
// the field, 401, 403, 404, 409 naming the current state, 413, 429, 503.
package api
