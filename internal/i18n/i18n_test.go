package i18n

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// verbs returns the placeholders of a text, sorted, so that two texts that
// take the same arguments in another order compare equal.
func verbs(s string) []string {
	v := placeholder.FindAllString(s, -1)
	for i, x := range v {
		// "%[2]s" and "%s" name the same kind of argument.
		if j := strings.Index(x, "]"); j > 0 {
			v[i] = "%" + x[j+1:]
		}
	}
	slices.Sort(v)
	return v
}

func TestCatalogsComplete(t *testing.T) {
	for _, loc := range Locales()[1:] {
		cat := Messages(loc)
		for id, src := range Messages(English) {
			f, ok := cat[id]
			if !ok {
				t.Errorf("%s: message %q is missing", loc, id)
				continue
			}
			if f.Arg != src.Arg {
				t.Errorf("%s: %q counts argument %d, English %d", loc, id, f.Arg, src.Arg)
			}
			if f.Other == "" {
				t.Errorf("%s: %q has no text", loc, id)
			}
			if got, want := verbs(f.Other), verbs(src.Other); !slices.Equal(got, want) {
				t.Errorf("%s: %q takes %v, English %v", loc, id, got, want)
			}
		}
		for id := range cat {
			if _, ok := Messages(English)[id]; !ok {
				t.Errorf("%s: message %q is not in the English source", loc, id)
			}
		}
	}
}

func TestCatalogsLoad(t *testing.T) {
	for _, loc := range Locales() {
		p := For(loc)
		if p.Locale() != loc {
			t.Fatalf("For(%q) is %q", loc, p.Locale())
		}
		for id := range Messages(English) {
			if got := p.T(id); strings.HasPrefix(got, id) {
				t.Errorf("%s: %q is not in the loaded catalog: %q", loc, id, got)
			}
		}
	}
}

func TestPlurals(t *testing.T) {
	for _, c := range []struct {
		loc, id string
		args    []any
		want    string
	}{
		{English, "votes.none", []any{1, 2}, "1 of 2 votes"},
		{English, "votes.none", []any{0, 1}, "0 of 1 vote"},
		{English, "card.title", []any{2}, "2 questions, answered one after the other"},
		{English, "duration.days", []any{1}, "1 day"},
		{English, "duration.days", []any{3}, "3 days"},
		{English, "field.chars", []any{1}, "1 character"},
		{English, "field.chars", []any{5}, "5 characters"},
		{German, "votes.none", []any{0, 1}, "0 von 1 Stimme"},
		{German, "votes.none", []any{1, 2}, "1 von 2 Stimmen"},
		{German, "card.title", []any{3}, "3 Fragen, eine nach der anderen zu beantworten"},
		{German, "duration.days", []any{1}, "1 Tag"},
		{German, "duration.days", []any{2}, "2 Tagen"},
		{Japanese, "votes.none", []any{1, 2}, "1 / 2 票"},
		{Japanese, "votes.none", []any{1, 1}, "1 / 1 票"},
		{Japanese, "duration.days", []any{1}, "1 日"},
		{Pseudo, "votes.none", []any{1, 2}, "[1 óf 2 vótés ~~~]"},
	} {
		if got := For(c.loc).T(c.id, c.args...); got != c.want {
			t.Errorf("%s %s %v = %q, want %q", c.loc, c.id, c.args, got, c.want)
		}
	}
}

func TestPseudoText(t *testing.T) {
	for _, s := range []string{"Submit", "Expires %s", "%[2]s by %[1]s", "Answered by %s at %s: %s", "x", "100%% sure"} {
		p := PseudoText(s)
		if !strings.HasPrefix(p, "[") || !strings.HasSuffix(p, "]") {
			t.Errorf("PseudoText(%q) = %q: not bracketed", s, p)
		}
		if n, m := utf8.RuneCountInString(s), utf8.RuneCountInString(p); m*10 < n*14 {
			t.Errorf("PseudoText(%q) = %q: %d characters, want at least 140 %% of %d", s, p, m, n)
		}
		if !slices.Equal(placeholder.FindAllString(p, -1), placeholder.FindAllString(s, -1)) {
			t.Errorf("PseudoText(%q) = %q: placeholders changed", s, p)
		}
	}
	if got := For(Pseudo).T("chip.expires", "14:30 UTC"); !strings.HasPrefix(got, "[Éxpírés 14:30 UTC ") {
		t.Errorf("pseudo chip.expires = %q", got)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"": "", "de": German, "de-AT": German, "en-GB": English, "ja-JP": Japanese, "en-XA": Pseudo, "EN": English} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"fr", "klingon!", "zz-ZZ"} {
		if got, err := Parse(in); err == nil || !strings.Contains(err.Error(), "supported: en, de, ja, en-XA") || !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) = %q, %v; want an error naming it and the supported locales", in, got, err)
		}
	}
}

func TestNegotiate(t *testing.T) {
	for in, want := range map[string]string{
		"de-DE,de;q=0.9,en;q=0.8": German,
		"ja":                      Japanese,
		"fr-FR,ja;q=0.5":          Japanese,
		"en-US,en;q=0.9":          English,
		"en-XA":                   Pseudo,
		"fr":                      "",
		"":                        "",
		"de;q=0.2,en;q=0.9":       English,
	} {
		if got := Negotiate(in); got != want {
			t.Errorf("Negotiate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIntegersAsTyped(t *testing.T) {
	for _, loc := range []string{English, German, Japanese} {
		got := For(loc).T("field.length_range", 1000, For(loc).T("field.chars", 65535))
		if !strings.Contains(got, "1000") || !strings.Contains(got, "65535") {
			t.Errorf("%s: %q groups the digits", loc, got)
		}
	}
	if got := For(German).T("duration.days", 1); got != "1 Tag" {
		t.Errorf("German one day = %q", got)
	}
}
