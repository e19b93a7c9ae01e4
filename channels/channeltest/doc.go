// Package channeltest is what the tests of every channel share: a bridge
// (the real broker on a temporary SQLite file, with routes) to register a
// channel with, one way to wait for something to become true, and the
// round-trip suite that each chat platform passes against its fake
// server.
//
// The fake servers (telegramfake, slackfake, discordfake) each speak
// their platform's dialect; each offers a Platform, the one harness the
// suite drives: tap a button as either of two people, choose in a select
// menu or checkboxes, type a command, reply to a message, read a chat's
// messages and the step data of their buttons and widgets, make the next
// post meet a 429 with a retry_after or a permanent refusal. The suite's
// cases (suite.go, stale.go, ratelimit.go, policies.go, buttondata.go,
// widgets.go) check on every platform what a person sees: a tap edits
// every copy, a stale tap changes nothing, a 429's wait is kept, a
// quorum and a snooze show on the copy, every button carries a
// broker.EncodeStep step within the platform's limit, and every select
// menu or checkbox group sends a step that answers with the options
// chosen in it, whose values name the prompt's options. A
// channel's test file runs the suite in one test function:
//
//	func TestChannelSuiteTelegram(t *testing.T) {
//		channeltest.Run(t, func(t *testing.T) channeltest.Platform { return telegramfake.New(…).Harness(…) })
//	}
package channeltest
