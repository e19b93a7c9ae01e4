// Package discord is the Discord channel of askbridge, built on
// github.com/bwmarrin/discordgo.
//
// Post renders a question from its broker.Card (render.go), built once
// per render and mapped in one pass: the content says what is asked
// (title of a dialog, header, question, options with descriptions,
// context, the card's state line) and the components carry the answers:
// one button per option, a select menu for multi-select prompts (followed
// by a form for an optional note when free text is allowed), "Other or
// note…" (a form for free text and the option numbers it goes with),
// Skip, Not ready, Decline and Snooze, each labelled as the card says.
// Content over Discord's 2000 characters is rendered once more from the
// card shortened by the excess (broker.Card.Shorten). Every custom id is
// a broker.Step written by broker.EncodeStep (customid.go); a tap sends
// the step's command (broker.Step.Command), and the custom ids of
// messages posted by earlier bridges are still read (legacy.go).
// Everything an agent wrote is escaped for Discord markdown, and every
// message is sent with allowed_mentions that parse nothing, so agent text
// can never ping @everyone, a role or a person.
//
// Inbound, every form a person can use ends as one broker.Inbound text:
// a button tap, a select menu submission, a modal submission, the /answer,
// /decline, /discuss and /pending application commands, a reply to the
// question message (its id travels as Inbound.ReplyTo) and typed
// "!answer k7m2qx 2" messages. A chat is a channel id, or "user:<id>" for a
// person's DM with the bot, which Post opens and every DM action reports. The
// channel never parses commands: the broker does, and the channel shows the
// broker's Reply to the person within Discord's three seconds (an updated
// message for an accepted tap, an ephemeral message otherwise).
//
// Interactions arrive over the gateway (mode "gateway", the default) or at
// an HTTP interactions endpoint (mode "http", served by Handler and
// verified with the application's Ed25519 public key). Messages (replies
// and typed commands) only ever arrive over the gateway, so Run keeps a
// gateway connection in both modes; the platform allows one per bot, hence
// Singleton. A message's attachments go to the broker as files, fetched
// from their signed CDN URLs without the bot token (files.go).
//
// The REST base URL is configurable: requests for discord.com are rewritten
// to it by the session's HTTP transport, which is also how tests point the
// real discordgo client at the fake server in package discordfake.
package discord
