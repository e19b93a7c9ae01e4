// Package channeltest is what the tests of every channel share: a bridge
// (the real broker on a temporary SQLite file, with routes) to register a
// channel with, one way to wait for something to become true, and the
// round-trip suite that each chat platform passes against its fake
// server.
//
// The fake servers (telegramfake, slackfake, discordfake) each speak
// their platform's dialect; each offers a Platform, the one harness the
// suite drives: tap a button, type a command, reply to a message, read a
// chat's messages, make the next post meet a rate limit or a permanent
// refusal. A channel's test file runs the suite in one test function:
//
//	func TestChannelSuiteTelegram(t *testing.T) {
//		channeltest.Run(t, func(t *testing.T) channeltest.Platform { return telegramfake.New(…).Harness(…) })
//	}
package channeltest
