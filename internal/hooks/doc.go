// Package hooks is `bridge hook`: the permission and question hooks of
// coding agents (Claude Code, Codex). The agent runs the hook with its event as JSON on standard
// input; the hook asks people through the bridge and prints the agent's
// decision JSON on standard output. Whenever no person decided (timeout,
// cancel, bridge down) it prints nothing and exits 0, so the agent shows
// its own local dialog: a hook never allows by default. It never exits 2,
// which both agents read as a denial.
// Each agent is an agentHook (claude.go, codex.go) that turns its event
// into a question (permission.go, claude_question.go, with previews of
// the tool input in preview.go) and the answer into its decision JSON;
// hook.go asks and waits through the SDK. install.go, entries.go and
// settings.go edit an agent's settings file, keeping every other setting
// and the order of keys. NewCmd returns the command for cmd/bridge.
package hooks
