package discord

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// mdReplacer escapes everything Discord markdown gives a meaning to, and
// breaks every "@" with a zero-width space so that "@everyone", "@here"
// and role or user mentions show as inert text even where allowed_mentions
// would not apply (a copy of the text pasted elsewhere).
var mdReplacer = strings.NewReplacer(
	`\`, `\\`, `*`, `\*`, `_`, `\_`, `~`, `\~`, "`", "\\`", `|`, `\|`,
	`>`, `\>`, `<`, `\<`, `#`, `\#`, `-`, `\-`, `[`, `\[`, `]`, `\]`,
	`(`, `\(`, `)`, `\)`, `@`, "@\u200b",
)

// escape makes s plain text in Discord markdown.
func escape(s string) string { return mdReplacer.Replace(s) }

// codeSafe makes s safe inside a `code span`.
func codeSafe(s string) string { return strings.ReplaceAll(s, "`", "'") }

// units is the length of s as Discord counts it (UTF-16 code units).
func units(s string) int {
	n := 0
	for _, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		n += w
	}
	return n
}

// truncate shortens s to at most max runes, ending with "…" when cut.
func truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}

// cutUnits shortens rendered markdown to at most max UTF-16 units, never
// leaving a dangling escape backslash.
func cutUnits(s string, max int) string {
	if units(s) <= max {
		return s
	}
	n := 0
	var b strings.Builder
	for _, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if n+w > max-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	out := b.String()
	// An odd run of trailing backslashes would escape the ellipsis.
	trail := len(out) - len(strings.TrimRight(out, `\`))
	if trail%2 == 1 {
		out = out[:len(out)-1]
	}
	return out + "…"
}
