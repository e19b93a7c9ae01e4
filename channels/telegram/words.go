package telegram

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askbridge/askbridge/internal/i18n"
)

// The channel's own words around a card (its reply-box prompts, toasts
// and the buttons of held text) are in the card's language; where no
// card is at hand, in the language of the person who acted, else the
// channel's.

// words prints for the person with Telegram user id user ("" when
// unknown): their language, else the channel's.
func (c *Channel) words(user string) *i18n.Printer { return c.langs.Words(Name, user, c.locale) }

// code is an argument of italicText shown as a typed command.
type code string

// italicText is message id in italics, escaped, with its code arguments
// as <code> entities between the italic runs: the form freeTextPrompt
// reads the commands back from.
func italicText(w *i18n.Printer, id string, args ...any) string {
	marks := make([]any, len(args))
	var codes []string
	for k, a := range args {
		if c, ok := a.(code); ok {
			marks[k] = "\x00" + strconv.Itoa(len(codes)) + "\x00"
			codes = append(codes, string(c))
			continue
		}
		marks[k] = a
	}
	var b strings.Builder
	for k, part := range strings.Split(w.T(id, marks...), "\x00") {
		switch {
		case k%2 == 1:
			if n, err := strconv.Atoi(part); err == nil && n < len(codes) {
				b.WriteString("<code>" + esc(codes[n]) + "</code>")
			}
		case part != "":
			b.WriteString("<i>" + esc(part) + "</i>")
		}
	}
	return b.String()
}

// capitalized is s with its first letter upper case, for a sentence the
// catalog writes to follow a person's name.
func capitalized(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
