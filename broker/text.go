package broker

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Agents are not trusted to format what people see. Every text field an
// agent writes is checked here before anything is stored or posted, with
// rules that depend on how the field is shown:
//
//   - Prose (a question, its context) may span lines: newline and tab are
//     allowed, and so are the invisible characters that real writing
//     needs (zero-width joiners in emoji and Persian, left-to-right and
//     right-to-left marks).
//   - A line (an option's description, a cancel reason) is one line.
//   - A name (a label, a header, a default, an id) is one line with no
//     invisible character at all, so that two names that look alike are
//     alike.
//
// Everywhere: invalid UTF-8, C0 and C1 control characters (ESC, NUL, DEL,
// CSI, ...), the line and paragraph separators U+2028 and U+2029, and the
// bidirectional embeddings, overrides and isolates U+202A–U+202E and
// U+2066–U+2069, which reorder how the rest of a line is displayed, are
// refused. Accepted text is normalised to NFC.

// textKind says which characters a field may hold.
type textKind int

const (
	kindProse textKind = iota // newline and tab, invisible joiners and marks allowed
	kindLine                  // one line; invisible joiners and marks allowed
	kindName                  // one line; no invisible character at all
)

// checkText returns a *FieldError naming field and the first character of
// s that kind does not allow, with its position, or nil.
func checkText(field, s string, kind textKind) error {
	at, pos, r, why := refusal(s, kind)
	switch why {
	case "":
		return nil
	case notUTF8:
		return fieldErr(field, "is not valid UTF-8 (byte %d)", at+1)
	}
	return fieldErr(field, "%s (%U) at character %d%s", why, r, pos, hint(r, kind))
}

// textAllowed reports whether checkText accepts s, without making its
// error.
func textAllowed(s string, kind textKind) bool {
	_, _, _, why := refusal(s, kind)
	return why == ""
}

// notUTF8 is what refusal says of a byte that is not UTF-8.
const notUTF8 = "not UTF-8"

// refusal finds the first character of s that kind does not allow: its
// byte offset, its position in characters (from 1), the character, and
// why it is refused (notUTF8 for a byte that is not UTF-8); why is ""
// when s is allowed.
func refusal(s string, kind textKind) (at, pos int, r rune, why string) {
	for i, r := range s {
		pos++
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i, pos, r, notUTF8
			}
		}
		if why := refusedRune(r, kind); why != "" {
			return i, pos, r, why
		}
	}
	return 0, 0, 0, ""
}

// refusedRune says why r is not allowed in text of kind, or "".
func refusedRune(r rune, kind textKind) string {
	switch {
	case r == '\n' || r == '\t':
		if kind == kindProse {
			return ""
		}
		if r == '\n' {
			return "must be one line: contains a line break"
		}
		return "must be one line: contains a tab"
	case isControl(r):
		return "contains a control character"
	case r == '\u2028' || r == '\u2029':
		return "contains a line or paragraph separator"
	case isBidiControl(r):
		return "contains a bidirectional embedding, override or isolate"
	case kind == kindName && unicode.Is(unicode.Cf, r):
		return "contains an invisible formatting character"
	}
	return ""
}

func hint(r rune, kind textKind) string {
	switch {
	case kind == kindProse && isControl(r):
		return "; only newline and tab are allowed"
	case kind == kindProse && (r == '\u2028' || r == '\u2029'):
		return "; use a newline"
	case kind == kindName && unicode.Is(unicode.Cf, r) && !isBidiControl(r):
		return "; labels, headers, defaults and ids must look the way they compare"
	}
	return ""
}

// isControl reports whether r is a C0 or C1 control character or DEL.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// isBidiControl reports whether r is a bidirectional embedding, override
// or isolate (U+202A–U+202E, U+2066–U+2069). The marks U+200E and U+200F
// are not: they set the direction of neutral characters only.
func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// nfc returns s normalised to Unicode Normalization Form C, so that "é"
// typed as one character and as "e" plus an accent are the same text.
func nfc(s string) string { return norm.NFC.String(s) }

// foldKey is the form in which labels are compared: NFC, then full Unicode
// case folding ("Straße" and "STRASSE" compare equal). ASCII text, the
// common case, is already in NFC and folds by lowering A–Z, which is what
// the full folding does to it; it skips the Unicode tables and their
// allocations.
func foldKey(s string) string {
	s = strings.TrimSpace(s)
	if !isASCII(s) {
		return unicodeFoldKey(s)
	}
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// unicodeFoldKey is foldKey through the Unicode tables.
func unicodeFoldKey(s string) string { return cases.Fold().String(nfc(s)) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// CheckPersonText checks text that a person typed (a free-text answer, a
// decline reason) before it is recorded and shown on every platform the
// question was posted to. Line breaks are normalised to "\n"; newline and
// tab are kept; any other control character is refused with an error
// that names it, since it would reach other platforms and terminals raw.
func CheckPersonText(s string) (string, error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if !utf8.ValidString(s) {
		return "", sayError(ErrInvalid, "answer.text_utf8")
	}
	pos := 0
	for _, r := range s {
		pos++
		if r != '\n' && r != '\t' && isControl(r) {
			return "", sayError(ErrInvalid, "answer.text_control", r, pos)
		}
	}
	return s, nil
}

// cleanName returns a person's display name or id as one line without
// control characters, line separators or bidirectional controls: it is
// shown after "Answered by" on every platform, and a person cannot
// retype their name, so it is cleaned rather than refused.
func cleanName(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\u2028' || r == '\u2029':
			return ' '
		case isControl(r), isBidiControl(r):
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// checkPromptText checks the characters of every text field of p (see
// text.go): the question may span lines; labels, headers and defaults are
// names; descriptions are one line. A prefill is returned to the agent
// and never shown to people, so only its encoding is checked.
func checkPromptText(f string, p Prompt) error {
	if err := checkText(promptField(f, "question"), prose(p.Question), kindProse); err != nil {
		return err
	}
	if err := checkText(promptField(f, "header"), p.Header, kindName); err != nil {
		return err
	}
	for k, o := range p.Options {
		if textAllowed(o.Label, kindName) && textAllowed(o.Description, kindLine) && utf8.ValidString(o.Prefill) && textAllowed(prose(o.Edit), kindProse) {
			continue // the field names below are made only for an error
		}
		of := promptField(f, fmt.Sprintf("options[%d]", k))
		if err := checkText(of+".label", o.Label, kindName); err != nil {
			return err
		}
		if err := checkText(of+".description", o.Description, kindLine); err != nil {
			return err
		}
		if !utf8.ValidString(o.Prefill) {
			return fieldErr(of+".prefill", "is not valid UTF-8")
		}
		if err := checkText(of+".edit", prose(o.Edit), kindProse); err != nil {
			return err
		}
	}
	for _, d := range p.Default {
		if err := checkText(promptField(f, "default"), d, kindName); err != nil {
			return err
		}
	}
	return nil
}

// prose returns s with Windows line ends as newlines; a lone carriage
// return stays and is refused as a control character.
func prose(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// normalizePrompt returns p with every shown text in NFC, in new memory.
func normalizePrompt(p Prompt) Prompt {
	p.Question = nfc(prose(p.Question))
	p.Header = nfc(p.Header)
	opts := p.Options
	p.Options = nil
	for _, o := range opts {
		o.Label, o.Description = nfc(o.Label), nfc(o.Description)
		p.Options = append(p.Options, o)
	}
	defs := p.Default
	p.Default = nil
	for _, d := range defs {
		p.Default = append(p.Default, nfc(d))
	}
	if p.Other != nil {
		other := *p.Other
		p.Other = &other
	}
	return p
}

// checkReason checks the reason of a cancel, which every platform shows
// after "Cancelled at 14:02:", and returns it normalised to NFC. It is one
// line, so it cannot draw a line of its own under the outcome.
func checkReason(reason string) (string, error) {
	if err := checkText("reason", reason, kindLine); err != nil {
		return "", err
	}
	reason = nfc(strings.TrimSpace(reason))
	if n := utf8.RuneCountInString(reason); n > MaxReasonChars {
		return "", fieldErr("reason", "at most %d characters, got %d", MaxReasonChars, n)
	}
	return reason, nil
}
