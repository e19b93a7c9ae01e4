package i18ntest

import (
	"slices"
	"testing"
)

func TestUntranslated(t *testing.T) {
	for _, c := range []struct {
		s    string
		keep []string
		want []string
	}{
		{"[Éxpírés [Fr 4] 14:30 UTC ~~] Which database?", []string{"Which database?"}, nil},
		{"Expires 14:30 · [déçlíñé ~~]", nil, []string{"Expires"}},
		{"/answer k7m2qx 1 [Skíp ~]", []string{"/answer k7m2qx 1"}, nil},
		{"[Éxpírés] by ana", []string{"ana"}, []string{"by"}},
	} {
		if got := Untranslated(c.s, c.keep...); !slices.Equal(got, c.want) {
			t.Errorf("Untranslated(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
