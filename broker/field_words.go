package broker

import (
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/internal/i18n"
)

// The words that say what a field takes: one rule ("a whole number from
// 1024 to 65535") that a card shows as what is expected (ExpectText) and
// a refusal repeats ("Port must be a whole number from 1024 to 65535").

// ExpectText says what prompt p takes when its options do not say it
// already: "Reply with a whole number from 1024 to 65535", "Reply with an
// email address such as ana@example.com", "Choose 2 to 3 of the choices";
// "" for a prompt without a field, free text of any length, one choice,
// or yes or no. Every channel shows it under the prompt.
func ExpectText(p Prompt) string { return expectText(english, p) }

func expectText(w *i18n.Printer, p Prompt) string {
	fd := p.Field
	switch {
	case fd == nil, fd.Type == FieldEnum, fd.Type == FieldBoolean:
		return ""
	case fd.Type == FieldMultiEnum:
		if fd.MinItems == nil && fd.MaxItems == nil {
			return ""
		}
		return w.T("field.choose", fd.words(w))
	case fd.Type == FieldString && fd.Format == "" && fd.MinLength == nil && fd.MaxLength == nil:
		return ""
	}
	return w.T("field.reply", fd.words(w))
}

// rule is the field's rule in English, for refusals and errors.
func (fd *Field) rule() string { return fd.words(english) }

// words is what fd takes, in w's language: "a whole number from 1024 to
// 65535".
func (fd *Field) words(w *i18n.Printer) string {
	switch fd.Type {
	case FieldNumber:
		return w.T("field.number", rangeWords(w, fd.Minimum, fd.Maximum))
	case FieldInteger:
		return w.T("field.integer", rangeWords(w, fd.Minimum, fd.Maximum))
	case FieldBoolean:
		return w.T("field.boolean")
	case FieldEnum:
		labels := make([]string, len(fd.Choices))
		for k, c := range fd.Choices {
			labels[k] = c.Label()
		}
		return w.T("field.one_of", orList(w, labels))
	case FieldMultiEnum:
		return itemsWords(w, fd.MinItems, fd.MaxItems)
	}
	var s string
	switch fd.Format {
	case FormatEmail:
		s = w.T("field.email")
	case FormatURI:
		s = w.T("field.uri")
	case FormatDate:
		s = w.T("field.date")
	case FormatDateTime:
		s = w.T("field.datetime")
	default:
		return w.T("field.text", lengthWords(w, fd.MinLength, fd.MaxLength))
	}
	if l := lengthWords(w, fd.MinLength, fd.MaxLength); l != "" {
		s = w.T("field.with_length", s, l)
	}
	return s
}

func rangeWords(w *i18n.Printer, lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return w.T("field.range", numberText(*lo), numberText(*hi))
	case lo != nil:
		return w.T("field.at_least", numberText(*lo))
	case hi != nil:
		return w.T("field.at_most", numberText(*hi))
	}
	return ""
}

func lengthWords(w *i18n.Printer, lo, hi *int) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return w.T("field.length_exactly", w.T("field.chars", *lo))
	case lo != nil && hi != nil:
		return w.T("field.length_range", *lo, w.T("field.chars", *hi))
	case lo != nil && *lo > 0:
		return w.T("field.at_least", w.T("field.chars", *lo))
	case hi != nil:
		return w.T("field.at_most", w.T("field.chars", *hi))
	}
	return ""
}

func itemsWords(w *i18n.Printer, lo, hi *int) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return w.T("field.items_exactly", *lo)
	case lo != nil && hi != nil:
		return w.T("field.items_range", *lo, *hi)
	case lo != nil && *lo > 1:
		return w.T("field.items_at_least", *lo)
	case hi != nil:
		return w.T("field.items_at_most", *hi)
	}
	return w.T("field.items_one_more")
}

func orList(w *i18n.Printer, words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return w.T("field.or", strings.Join(words[:len(words)-1], ", "), words[len(words)-1])
}

// numberText writes a bound as people read it: 1024, 0.5, -3.
func numberText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
