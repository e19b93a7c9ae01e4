package slack

import (
	"strings"
	"unicode/utf8"
)

// Slack's documented limits (no library enforces them).
const (
	maxButtonText   = 75
	maxButtonValue  = 2000
	maxActionsElems = 25
	maxBlocks       = 50
	maxSectionText  = 3000
	maxContextText  = 3000
	maxOptionText   = 75
	maxOptionDesc   = 75
	maxFallbackText = 3000
	maxModalLabel   = 2000
	// maxPrivateMetadata bounds a modal's private_metadata.
	maxPrivateMetadata = 3000
)

// escapeMrkdwn escapes the three characters Slack's mrkdwn gives meaning
// to, so that agent text cannot mention (<!here>, <@U123>), link
// (<http://x|y>) or inject entities.
func escapeMrkdwn(s string) string {
	return mrkdwnEscaper.Replace(s)
}

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// unescapeMessage undoes the escaping Slack applies to the text of message
// events, so that "a < b" typed by a person reaches the broker as written.
func unescapeMessage(s string) string {
	return messageUnescaper.Replace(s)
}

var messageUnescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// escapeLimit escapes s and cuts the result to at most n characters,
// never inside an entity, ending with "…" when cut.
func escapeLimit(s string, n int) string {
	e := escapeMrkdwn(s)
	if utf8.RuneCountInString(e) <= n {
		return e
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		piece := escapeMrkdwn(string(r))
		w := utf8.RuneCountInString(piece)
		if used+w > n-1 {
			break
		}
		b.WriteString(piece)
		used += w
	}
	b.WriteString("…")
	return b.String()
}

// limit cuts plain text to at most n characters, ending with "…" when
// cut.
func limit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
