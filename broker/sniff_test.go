package broker_test

import (
	"bytes"
	"mime"
	"net/http"
	"slices"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// sniffSamples are files of every kind the sniffer must tell apart.
var sniffSamples = [][]byte{
	pngData, jpegData, logData, pdfData, zipData, htmlData,
	[]byte("GIF89a\x01\x00\x01\x00"), []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), []byte("RIFF\x24\x00\x00\x00WAVEfmt "),
	[]byte("   <?xml version=\"1.0\"?><a/>"), []byte("\n\n<HTML>"), []byte("<b>bold</b> in a log"), []byte("<br"),
	[]byte("%!PS-Adobe-3.0"), []byte("\xEF\xBB\xBFtext with a BOM"), []byte("\xFE\xFF\x00a"), []byte("BM bitmap?"),
	[]byte("ID3 tags"), []byte("OTTO font"), []byte("wOFF"), []byte("\x1F\x8B\x08gzip"),
	append(bytes.Repeat([]byte("a"), 34), "LP"...), []byte("plain\ttext\r\nwith\x0cform feed"),
	[]byte("binary\x00zero"), []byte("escape \x1b[31m red"), []byte(""), []byte("   "),
	append(bytes.Repeat([]byte("x"), 600), 0), // binary past 512 bytes: still text
}

// TestSniffAgreesWithDetectContentType: the broker's sniffer, which may
// not use net/http, gives the type DetectContentType gives (without
// parameters), wherever either of them accepts the file.
func TestSniffAgreesWithDetectContentType(t *testing.T) {
	for _, data := range sniffSamples {
		checkSniff(t, data)
	}
}

func FuzzSniff(f *testing.F) {
	for _, s := range sniffSamples {
		f.Add(s)
	}
	f.Fuzz(checkSniff)
}

func checkSniff(t *testing.T, data []byte) {
	got, ok := broker.SniffFileType(data)
	want, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	wantOK := slices.Contains(broker.AllowedFileTypes, want)
	if ok != wantOK || (ok && got != want) {
		t.Errorf("sniffFileType(%q) = %s, %v; DetectContentType says %s (accepted: %v)", trunc(data), got, ok, want, wantOK)
	}
}

func trunc(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
