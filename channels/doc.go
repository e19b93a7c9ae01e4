// Package channels holds what every channel package shares with the
// wiring: the options each constructor takes and the HTTP routes a
// channel offers.
//
// Every channel package (cli, web, telegram, slack, discord) has one
// shape, so that a reader finds the same thing in the same file
// whichever platform they open:
//
//	<name>.go   the Channel type, Name, New, Post, Update, Remind
//	config.go   Config and its pure Validate (no environment, no network)
//	render.go   how a question looks on the platform
//	inbound.go  platform events turned into broker.Inbound
//	receive.go  Run: the long poll, gateway or socket, or the webhook
//	api.go      calls to the platform: retry on 429, classify, redact
//
// with extra files where a platform needs them (Slack's ack.go, Discord's
// deadline.go). New always has the form
//
//	New(cfg Config, h broker.InboundHandler, opts channels.Options) (*Channel, error)
//
// (the web inbox's Options add what it alone needs) and makes no network
// call: a platform's identity (Telegram's getMe, Slack's auth.test) is
// learnt in Run. A channel that serves HTTP (a webhook, the web inbox)
// implements Router, and the wiring mounts what Routes returns, so that
// building the channels is a loop over the configured ones.
//
// Package channels/channeltest is the round-trip suite every chat
// platform passes against its fake server.
package channels
