package cmdline

import (
	"testing"
)

func TestPrintable(t *testing.T) {
	tests := []struct {
		in    string
		lines bool
		want  string
	}{
		{"plain ✓ 数据库 ❤️", false, "plain ✓ 数据库 ❤️"},
		{"a\nb\tc", false, `a\nb\tc`},
		{"a\nb", true, "a\nb"},
		{"\x1b[31m", true, `\x1b[31m`},
		{"\u202e\u200b\u00ad", false, `\u202e\u200b\u00ad`},
		{"tag \U000E0041", false, `tag \U000e0041`},
		{"bad \xff byte", false, `bad \xff byte`},
		{"real \uFFFD stays", false, "real \uFFFD stays"},
	}
	for _, tt := range tests {
		if got := Printable(tt.in, tt.lines); got != tt.want {
			t.Errorf("Printable(%q, %v) = %q, want %q", tt.in, tt.lines, got, tt.want)
		}
	}
}
