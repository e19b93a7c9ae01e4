package broker

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// foldKey's ASCII path gives what the Unicode tables give: for every
// ASCII character alone and amid others, and for random ASCII strings;
// text beyond ASCII still goes through the tables.
func TestFoldKeyASCIIMatchesUnicodeFolding(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := foldKey(s), unicodeFoldKey(strings.TrimSpace(s)); got != want {
			t.Fatalf("foldKey(%q) = %q, the Unicode folding gives %q", s, got, want)
		}
	}
	for c := 0; c < 0x80; c++ {
		check(string(rune(c)))
		check("Ab" + string(rune(c)) + "Zz ")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(0x80))
		}
		check(string(b))
	}
	for _, tc := range []struct{ a, b string }{
		{"Straße", "STRASSE"}, {"Café", "CAFE\u0301"}, {" SQLite ", "sqlite"}, {"\u212a", "k"},
	} {
		if foldKey(tc.a) != foldKey(tc.b) {
			t.Errorf("foldKey(%q) = %q and foldKey(%q) = %q: want equal", tc.a, foldKey(tc.a), tc.b, foldKey(tc.b))
		}
	}
	if foldKey("Postgres") == foldKey("Postgre") {
		t.Error("different labels folded to the same key")
	}
}

func BenchmarkFoldKey(b *testing.B) {
	for _, s := range []string{"Postgres (server)", "Straße"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = foldKey(s)
			}
		})
	}
}
