package i18ntest

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

var innermost = regexp.MustCompile(`\[[^\[\]]*\]`)

// Untranslated returns the words of s that are neither in a bracketed
// (pseudo-localised) text nor one of keep: the texts that are meant to
// pass unchanged, such as the agent's question and labels, people's
// names, commands and the command words. Words are runs of letters; an
// empty result means every word came from the catalog.
func Untranslated(s string, keep ...string) []string {
	keep = slices.Clone(keep)
	slices.SortFunc(keep, func(a, b string) int { return len(b) - len(a) })
	for _, k := range keep {
		if k != "" {
			s = strings.ReplaceAll(s, k, " ")
		}
	}
	for {
		t := innermost.ReplaceAllString(s, " ")
		if t == s {
			break
		}
		s = t
	}
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}
