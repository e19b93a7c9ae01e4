package broker_test

import (
	"bytes"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestFileTypes: the type a person's file is stored under is read from its
// bytes, whatever its name or the type the platform declared; only
// pictures, plain text and PDFs are accepted, and markup is never taken
// for text, so that no page reaches a browser as a "log".
func TestFileTypes(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string // "" when refused
	}{
		{"png", pngData, "image/png"},
		{"jpeg", jpegData, "image/jpeg"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), "image/gif"},
		{"webp", []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), "image/webp"},
		{"pdf", pdfData, "application/pdf"},
		{"log", logData, "text/plain"},
		{"text with tabs, CR LF and a form feed", []byte("plain\ttext\r\nwith\x0cform feed"), "text/plain"},
		{"terminal colours", []byte("escape \x1b[31m red"), "text/plain"},
		{"UTF-8 byte order mark", []byte("\xEF\xBB\xBFtext with a BOM"), "text/plain"},
		{"UTF-16 byte order mark", []byte("\xFE\xFF\x00a"), "text/plain"},
		{"a tag's start that is no tag", []byte("<br"), "text/plain"},
		{"a zero byte past the first 512", append(bytes.Repeat([]byte("x"), 600), 0), "text/plain"},
		{"html", htmlData, ""},
		{"html after blank lines", []byte("\n\n<HTML>"), ""},
		{"a log that opens with a tag", []byte("<b>bold</b> in a log"), ""},
		{"xml", []byte("   <?xml version=\"1.0\"?><a/>"), ""},
		{"zip", zipData, ""},
		{"gzip", []byte("\x1F\x8B\x08gzip"), ""},
		{"wave", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), ""},
		{"postscript", []byte("%!PS-Adobe-3.0"), ""},
		{"bitmap", []byte("BM bitmap?"), ""},
		{"mp3", []byte("ID3 tags"), ""},
		{"font", []byte("OTTO font"), ""},
		{"embedded font", append(bytes.Repeat([]byte("a"), 34), "LP"...), ""},
		{"a zero byte", []byte("binary\x00zero"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ, ok := broker.SniffFileType(c.data)
			switch {
			case c.want == "" && ok:
				t.Errorf("accepted as %s; want it refused", typ)
			case c.want != "" && (!ok || typ != c.want):
				t.Errorf("got %s (accepted: %v); want %s, accepted", typ, ok, c.want)
			}
		})
	}
}
