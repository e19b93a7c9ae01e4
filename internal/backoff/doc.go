// Package backoff is the one way askbridge waits between attempts that
// failed: a channel's receiver reconnecting, Telegram's pause on a 429
// that names no wait, the Redis resolution feed resubscribing, a callback
// delivery or its record, the client re-attaching to a question, the MCP
// adapter and the hook riding out a restarting bridge, the bench tool's
// client, the broker's platform outbox. It imports nothing of the
// project, so that the broker may use it.
//
// A Backoff starts at its initial pause and doubles it up to a cap; each
// pause it hands out is drawn at random from the upper half of the
// current step ("equal jitter"), so that instances that failed together
// do not retry in step, while the pauses still grow from one attempt to
// the next. Reset starts over after a success. Wait sleeps the next pause
// unless the context ends first, so that a shutdown never waits out a
// pause.
//
// What counts as a failure worth retrying, and what to log, stays with
// each caller: the helper owns only the arithmetic and the sleep.
package backoff
