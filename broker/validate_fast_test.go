package broker

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// BenchmarkValidateRequest checks a four-option question as an ask does.
func BenchmarkValidateRequest(b *testing.B) {
	req := AskRequest{
		SessionID: "s1", Question: "Which database should the service use?", Header: "Database",
		Options: []Option{{Label: "Postgres (Recommended)", Description: "a server"}, {Label: "SQLite", Description: "a file"}, {Label: "MySQL"}, {Label: "DuckDB"}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := validateRequest(&req); err != nil {
			b.Fatal(err)
		}
	}
}

// The checks that spare an ask's validation its allocations give what the
// plain forms they replace give, on every string of up to three pieces
// of an alphabet of awkward characters, alone and before each way of
// writing the recommended mark.
func TestFastChecksAgreeWithPlainForms(t *testing.T) {
	alphabet := []string{"", "a", "K", "\u212a", "k", " ", "\u00a0", "\u0085", "\t", "\n", "1", "42", "+", "-", ",", "(", ")", "R", "\xff", "\xe2\x82", "İ", "ſ", "é", "\u200b", "\u202e", "\x1b"}
	marks := []string{"", RecommendedSuffix, " (RECOMMENDED)", " (recommended) ", "(Recommended)", " (Recommended\xff)", " (Recommended)\u00a0", " (Recommendeᴅ)"}
	plainNumbers := func(s string) bool {
		fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		if len(fields) == 0 {
			return false
		}
		for _, f := range fields {
			if n, err := strconv.Atoi(f); err != nil || n < 0 {
				return false
			}
		}
		return true
	}
	n := 0
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				for _, m := range marks {
					s := a + b + c + m
					n++
					if got, want := countWords(s), len(strings.Fields(s)); got != want {
						t.Fatalf("countWords(%q) = %d, strings.Fields gives %d", s, got, want)
					}
					if got, want := hasRecommendedSuffix(s), strings.HasSuffix(strings.ToLower(strings.TrimSpace(s)), strings.ToLower(RecommendedSuffix)); got != want {
						t.Fatalf("hasRecommendedSuffix(%q) = %v, lowering gives %v", s, got, want)
					}
					if _, got := parseNumbers(s); got != plainNumbers(s) {
						t.Fatalf("parseNumbers(%q) says %v, Atoi on each field says %v", s, got, !got)
					}
					for _, kind := range []textKind{kindProse, kindLine, kindName} {
						if got, want := textAllowed(s, kind), checkText("f", s, kind) == nil; got != want {
							t.Fatalf("textAllowed(%q, %d) = %v, checkText says %v", s, kind, got, want)
						}
					}
				}
			}
		}
	}
	if n < 100000 {
		t.Fatalf("only %d strings checked", n)
	}
}
