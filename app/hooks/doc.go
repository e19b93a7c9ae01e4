// Package hooks is `bridge hook`: the permission and question hooks of
// coding agents (Claude Code, Codex). The agent runs the hook with its event as JSON on standard
// input; the hook asks people through the bridge and prints the agent's
// decision JSON on standard output. Whenever no person decided (timeout,
// cancel, bridge down) it prints nothing and exits 0, so the agent shows
// its own local dialog: a hook never allows by default. It never exits 2,
// which both agents read as a denial.
// Each agent is an agentHook (claude.go, codex.go) that turns its event
// into a question (permission.go, claude_question.go) and the answer into
// its decision JSON. The question shows what will run: the risks of the
// call first (risk.go, over a rough shell reader in shell.go), a preview
// of its input (preview.go) that says when it is shortened and attaches
// the whole, and only literal secrets masked (mask.go). hook.go asks and
// waits through the SDK, one question per request; settled.go closes the
// question of a prompt answered at the terminal first. install.go,
// entries.go and settings.go edit an agent's settings file, keeping every
// other setting and the order of keys. NewCmd returns the command for
// cmd/bridge; channel_question.go is the same question for prompts that
// Claude Code relays through its channel protocol.
package hooks
