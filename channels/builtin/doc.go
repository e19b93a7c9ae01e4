// Package builtin is the channels section of the configuration file and
// the one place that knows every channel the bridge ships: the text
// channel, the web inbox, Telegram, Slack and Discord. Config says which
// are on (the text channel and the web inbox unless disabled, a chat
// platform when its section is present), Validate checks each section
// with the channel's own Validate, and Build creates the channels,
// registers them with the broker and collects what the server needs from
// them (Wiring: HTTP routes, webhooks, inbound loops).
package builtin
