package broker

import (
	"strconv"
	"strings"
)

// The words that say what a field takes: one rule ("a whole number from
// 1024 to 65535") that a card shows as what is expected (ExpectText) and
// a refusal repeats ("Port must be a whole number from 1024 to 65535").

// ExpectText says what prompt p takes when its options do not say it
// already: "Reply with a whole number from 1024 to 65535", "Reply with an
// email address such as ana@example.com", "Choose 2 to 3 of the choices";
// "" for a prompt without a field, free text of any length, one choice,
// or yes or no. Every channel shows it under the prompt.
func ExpectText(p Prompt) string {
	fd := p.Field
	switch {
	case fd == nil, fd.Type == FieldEnum, fd.Type == FieldBoolean:
		return ""
	case fd.Type == FieldMultiEnum:
		if fd.MinItems == nil && fd.MaxItems == nil {
			return ""
		}
		return "Choose " + fd.rule()
	case fd.Type == FieldString && fd.Format == "" && fd.MinLength == nil && fd.MaxLength == nil:
		return ""
	}
	return "Reply with " + fd.rule()
}

// rule says in words what fd takes, to follow "must be".
func (fd *Field) rule() string {
	switch fd.Type {
	case FieldNumber:
		return "a number" + rangeWords(fd.Minimum, fd.Maximum)
	case FieldInteger:
		return "a whole number" + rangeWords(fd.Minimum, fd.Maximum)
	case FieldBoolean:
		return "yes or no"
	case FieldEnum:
		labels := make([]string, len(fd.Choices))
		for k, c := range fd.Choices {
			labels[k] = c.Label()
		}
		return "one of " + orList(labels)
	case FieldMultiEnum:
		return itemsWords(fd.MinItems, fd.MaxItems)
	}
	var s string
	switch fd.Format {
	case FormatEmail:
		s = "an email address such as ana@example.com"
	case FormatURI:
		s = "a URI such as https://example.com/page"
	case FormatDate:
		s = "a date such as 2026-12-03"
	case FormatDateTime:
		s = "a date and time such as 2026-12-03T14:30:00Z"
	default:
		return "text" + lengthWords(fd.MinLength, fd.MaxLength)
	}
	if l := lengthWords(fd.MinLength, fd.MaxLength); l != "" {
		s += "," + l
	}
	return s
}

func rangeWords(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return " from " + numberText(*lo) + " to " + numberText(*hi)
	case lo != nil:
		return " of at least " + numberText(*lo)
	case hi != nil:
		return " of at most " + numberText(*hi)
	}
	return ""
}

func lengthWords(lo, hi *int) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return " of exactly " + plural(*lo, "character")
	case lo != nil && hi != nil:
		return " of " + strconv.Itoa(*lo) + " to " + plural(*hi, "character")
	case lo != nil && *lo > 0:
		return " of at least " + plural(*lo, "character")
	case hi != nil:
		return " of at most " + plural(*hi, "character")
	}
	return ""
}

func itemsWords(lo, hi *int) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return "exactly " + strconv.Itoa(*lo) + " of the choices"
	case lo != nil && hi != nil:
		return strconv.Itoa(*lo) + " to " + strconv.Itoa(*hi) + " of the choices"
	case lo != nil && *lo > 1:
		return "at least " + strconv.Itoa(*lo) + " of the choices"
	case hi != nil:
		return "at most " + strconv.Itoa(*hi) + " of the choices"
	}
	return "one or more of the choices"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// numberText writes a bound as people read it: 1024, 0.5, -3.
func numberText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
