package i18n

import (
	"fmt"
	"strconv"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Form is one locale's text of a message. A plain message has Other
// alone. A plural message names the argument that counts (Arg, 1-based)
// and a text per CLDR plural category the language uses: One and Other
// in English and German, Other alone in Japanese.
type Form struct {
	Arg   int
	One   string
	Other string
}

// S is a plain message's form.
func S(text string) Form { return Form{Other: text} }

// P is a plural message's form: arg is the 1-based argument that counts,
// one the text for the category "one" ("" in a language without it).
func P(arg int, one, other string) Form { return Form{Arg: arg, One: one, Other: other} }

// Catalog is one locale's messages by id.
type Catalog map[string]Form

// The locales the bridge speaks.
const (
	English  = "en"
	German   = "de"
	Japanese = "ja"
	// Pseudo is the pseudo-locale generated from English.
	Pseudo = "en-XA"
)

// Locales lists the supported locales, source first.
func Locales() []string { return []string{English, German, Japanese, Pseudo} }

// Messages returns a copy of the catalog of locale, nil for an unknown
// one; Pseudo's is generated from English.
func Messages(locale string) Catalog {
	var parts []Catalog
	switch locale {
	case English:
		parts = []Catalog{en, enChannels, enReplies, enInbox, enPages, enAnswers, enDialogs}
	case German:
		parts = []Catalog{de, deChannels, deReplies, deInbox, dePages, deAnswers, deDialogs}
	case Japanese:
		parts = []Catalog{ja, jaChannels, jaReplies, jaInbox, jaPages, jaAnswers, jaDialogs}
	case Pseudo:
		parts = []Catalog{pseudoCatalog()}
	default:
		return nil
	}
	out := Catalog{}
	for _, p := range parts {
		for id, f := range p {
			out[id] = f
		}
	}
	return out
}

var (
	loadOnce sync.Once
	printers map[string]*Printer
)

func load() {
	b := catalog.NewBuilder()
	printers = map[string]*Printer{}
	for _, loc := range Locales() {
		tag := language.MustParse(loc)
		for id, f := range Messages(loc) {
			if err := b.Set(tag, id, f.message()); err != nil {
				// The tables are Go source checked by tests; a bad form is a
				// programming error caught by TestCatalogsLoad.
				panic(fmt.Sprintf("i18n: %s %s: %v", loc, id, err))
			}
		}
		printers[loc] = &Printer{locale: loc, p: message.NewPrinter(tag, message.Catalog(b))}
	}
}

func (f Form) message() catalog.Message {
	if f.Arg == 0 {
		return catalog.String(f.Other)
	}
	var cases []any
	if f.One != "" {
		cases = append(cases, "one", f.One)
	}
	cases = append(cases, "other", f.Other)
	return plural.Selectf(f.Arg, "%d", cases...)
}

// Printer formats the messages of one locale. It is safe for concurrent use.
type Printer struct {
	locale string
	p      *message.Printer
}

// For returns the printer of locale, as Parse returned it; any other
// value, "" included, gets English.
func For(locale string) *Printer {
	loadOnce.Do(load)
	if p, ok := printers[locale]; ok {
		return p
	}
	return printers[English]
}

// Locale is the printer's locale.
func (p *Printer) Locale() string { return p.locale }

// T formats message id with args. An id no catalog has comes out as the
// id itself, so a missing message shows instead of hiding.
//
// Integers are written as typed, without grouping ("65535", not
// "65,535"), as people type them back; they still choose plural forms.
func (p *Printer) T(id string, args ...any) string {
	as := make([]any, len(args))
	for i, a := range args {
		if n, ok := a.(int); ok {
			a = count(n)
		}
		as[i] = a
	}
	return p.p.Sprintf(id, as...)
}

// count is an integer written with strconv and counted by the CLDR
// cardinal rules of the printer's language.
type count int

func (c count) Format(s fmt.State, _ rune) {
	_, _ = s.Write(strconv.AppendInt(nil, int64(c), 10))
}

func (c count) PluralForm(t language.Tag, _ int) (plural.Form, int) {
	n := int(c)
	i := max(n, -n)
	return plural.Cardinal.MatchPlural(t, i, 0, 0, 0, 0), n
}
