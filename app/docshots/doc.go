// Package docshots makes the pictures and the Slack excerpt of
// docs/agents.md from the running code: a bridge in one process (the real
// broker on a SQLite file, the web inbox, the Slack channel against the
// fake Slack of channels/slack/slackfake, the API), the real `bridge hook
// claude` asking through it, and headless Chromium photographing the
// inbox. TestDocShots does the work, and runs only when
// ASKBRIDGE_DOCSHOTS names the folder to write to:
//
//	ASKBRIDGE_DOCSHOTS=$PWD/docs/img go test -count=1 -run TestDocShots ./app/docshots/
//
// It writes permission-prompt-390.png, permission-prompt-1280.png,
// rules-390.png and rules-1280.png (each PNG at most 200 KB) and
// permission-prompt.slack.json, the blocks the Slack channel posted for
// the prompt.
//
// TestInboxShots, run the same way, writes inbox-<lang>-<light|dark>.png:
// a two-question dialog on a phone, light and dark, read by a person of
// English, of German and of the pseudo-locale en-XA (docs/languages.md).
package docshots
