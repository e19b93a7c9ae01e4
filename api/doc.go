// Package api is the agent-facing HTTP API v1 of askbridge: asking
// (blocking up to a bound, or in pending mode), getting with long-polls,
// listing for recovery, cancelling, the files people sent with their
// answers (GET /v1/questions/{id}/attachments/{n}), the audit trails of
// questions (GET /v1/questions/{id}/audit, with the check of its chain,
// and GET /v1/audit, JSON lines since a time: audit.go), the
// text-command door for text-only channels, and health, readiness and
// Prometheus metrics.
//
// Every request is authenticated with a bearer key from the configuration:
// agent keys for the question calls, responder keys for /v1/commands, and
// the audit key, which reads every agent's audit trails. Each agent sees
// only its own questions. With no key configured, the server is
// meant for loopback only (cmd/bridge refuses other listen addresses) and
// every caller is the agent "local".
//
// The configuration sections the API reads are typed and checked here
// (keys_settings.go, settings.go): agents and responders with their keys
// (ValidateKeys: names, set variables, lengths beyond loopback, no key
// shared), limits, metrics, whose own listener ServeMetrics starts, and
// audit (AuditSettings: retention, the audit key).
//
// Errors are JSON: {"error":{"code","message","field"}}, with 400 naming
// the field, 401, 403, 404, 409 naming the current state, 413, 429, 503.
package api
