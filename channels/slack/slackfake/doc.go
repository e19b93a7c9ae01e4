// Package slackfake is a fake Slack for tests: the Web API methods the
// Slack channel uses (auth.test, chat.postMessage, chat.update,
// chat.postEphemeral, views.open, users.info, apps.connections.open) and a
// Socket Mode WebSocket. It answers with Slack's real JSON, including its
// error bodies ({"ok":false,"error":"channel_not_found"}) and 429 with
// Retry-After, so that the real slack-go client can be tested against it.
//
// The Socket Mode endpoint accepts any Origin, greets with "hello", sends
// WebSocket pings and records the acks it gets. Tests push envelopes built
// from what a person would do on a posted message (ClickButton,
// SubmitCheckboxes, SubmitView, SlashCommand, ThreadReply), so a test can
// only tap a button that the message really has. Files people share
// (ShareFile, FileShareEvent) are served at their url_private_download,
// to the bot token only, as Slack does.
package slackfake
