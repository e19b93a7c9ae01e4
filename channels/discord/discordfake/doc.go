// Package discordfake is a fake Discord for tests: an HTTP server that
// answers the REST calls the discord channel makes (channel messages
// create, as JSON or as multipart/form-data with files, and edit,
// interaction callbacks, application command bulk
// overwrite, the gateway URL) with Discord's JSON, including its error
// bodies (Missing Access, Unknown Channel, 429 with retry_after and the
// rate-limit headers), and a gateway WebSocket that says hello (op 10),
// reads identify (op 2), sends READY, acknowledges heartbeats (op 11) and
// dispatches INTERACTION_CREATE and MESSAGE_CREATE events made by the
// test: a person tapping a button, choosing in a select menu, submitting a
// modal, using a slash command, or replying to a message, with files
// attached (served on the fake's CDN path, /attachments/…, as signed URLs
// that need no token).
//
// It keeps the messages it was sent and every request, so tests assert
// what a person would see in Discord. A real discordgo session reaches it
// through an http.Client whose transport rewrites discord.com to the
// server's address.
package discordfake
