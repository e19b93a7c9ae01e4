package i18n

import (
	"fmt"
	"strings"

	"golang.org/x/text/language"
)

var matcher = language.NewMatcher([]language.Tag{
	language.English, language.German, language.Japanese,
})

// Parse checks a configured BCP 47 tag and returns the supported locale it
// names: "de-AT" is German, "en-GB" English, "en-XA" the pseudo-locale.
// An empty tag is "" (not chosen here). An unknown or malformed tag is an
// error that lists the supported locales.
func Parse(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	tag, err := language.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a language tag (%v); supported: %s", s, err, strings.Join(Locales(), ", "))
	}
	if r, _ := tag.Region(); r.String() == "XA" {
		if b, _ := tag.Base(); b.String() == "en" {
			return Pseudo, nil
		}
	}
	base, _ := tag.Base()
	switch base.String() {
	case "en":
		return English, nil
	case "de":
		return German, nil
	case "ja":
		return Japanese, nil
	}
	return "", fmt.Errorf("%q is not a supported language; supported: %s", s, strings.Join(Locales(), ", "))
}

// Negotiate picks the locale for a browser's Accept-Language header, or ""
// when the header names none the bridge speaks (the caller's default then
// applies). The pseudo-locale is chosen only when the header names en-XA.
func Negotiate(acceptLanguage string) string {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return ""
	}
	if r, _ := tags[0].Region(); r.String() == "XA" {
		if b, _ := tags[0].Base(); b.String() == "en" {
			return Pseudo
		}
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return ""
	}
	return []string{English, German, Japanese}[i]
}
