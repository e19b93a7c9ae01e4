package i18n

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// placeholder matches a fmt verb, which pseudo-localising keeps as is.
var placeholder = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

var accents = strings.NewReplacer(
	"a", "á", "e", "é", "i", "í", "o", "ó", "u", "ú", "c", "ç", "n", "ñ", "y", "ý",
	"A", "Á", "E", "É", "I", "Í", "O", "Ó", "U", "Ú", "C", "Ç", "N", "Ñ", "Y", "Ý",
)

// PseudoText returns s pseudo-localised: letters accented, placeholders
// kept, padded with '~' to 40 % more characters than s, in brackets.
func PseudoText(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("[")
	last := 0
	for _, m := range placeholder.FindAllStringIndex(s, -1) {
		b.WriteString(accents.Replace(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(accents.Replace(s[last:]))
	n := utf8.RuneCountInString(s)
	pad := (n*4+9)/10 - 2 // the brackets count towards the 40 %
	if pad > 0 {
		b.WriteString(" ")
		b.WriteString(strings.Repeat("~", pad-1))
	}
	b.WriteString("]")
	return b.String()
}

var (
	pseudoOnce sync.Once
	pseudo     Catalog
)

func pseudoCatalog() Catalog {
	pseudoOnce.Do(func() {
		pseudo = Catalog{}
		for id, f := range Messages(English) {
			pseudo[id] = Form{Arg: f.Arg, One: PseudoText(f.One), Other: PseudoText(f.Other)}
		}
	})
	return pseudo
}
