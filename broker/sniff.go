package broker

import (
	"bytes"
	"slices"
)

// sniffFileType returns the media type of a file from its first 512
// bytes, without parameters, and whether files of that type are accepted
// (allowedFileTypes). It follows the rules of net/http's
// DetectContentType, which the broker may not import (it knows no
// net/http): a test checks that both agree. Markup (HTML, XML) is never
// plain text here, so that no page reaches a browser as a "log".
func sniffFileType(data []byte) (string, bool) {
	t := sniff(data)
	return t, slices.Contains(allowedFileTypes, t)
}

// sniffLen is how much of a file the sniffer reads.
const sniffLen = 512

// octetStream is the type of anything the sniffer does not accept.
const octetStream = "application/octet-stream"

// signature is one entry of the sniffing table: bytes under a mask at the
// start of the data (after leading white space when skipWS), with the type
// they mean. An empty mask means all ones.
type signature struct {
	pat, mask []byte
	skipWS    bool
	typ       string
}

func (s signature) match(data []byte, ws int) bool {
	if s.skipWS {
		data = data[ws:]
	}
	if len(data) < len(s.pat) {
		return false
	}
	for i, p := range s.pat {
		b := data[i]
		if s.mask != nil {
			b &= s.mask[i]
		}
		if b != p {
			return false
		}
	}
	return true
}

func exact(pat, typ string) signature { return signature{pat: []byte(pat), typ: typ} }

func masked(pat, mask, typ string) signature {
	return signature{pat: []byte(pat), mask: []byte(mask), typ: typ}
}

// htmlTags open an HTML document, case-insensitively, when followed by a
// space or ">".
var htmlTags = []string{"<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT",
	"<TABLE", "<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--"}

// signatures are those of DetectContentType after HTML, in its order.
// Types that are not accepted are listed too, since they decide that a
// file is not text; their exact names do not matter here.
var signatures = []signature{
	{pat: []byte("<?xml"), skipWS: true, typ: "text/xml"},
	exact("%PDF-", "application/pdf"),
	exact("%!PS-Adobe-", "application/postscript"),
	masked("\xFE\xFF\x00\x00", "\xFF\xFF\x00\x00", "text/plain"),
	masked("\xFF\xFE\x00\x00", "\xFF\xFF\x00\x00", "text/plain"),
	masked("\xEF\xBB\xBF\x00", "\xFF\xFF\xFF\x00", "text/plain"),
	exact("\x00\x00\x01\x00", "image/x-icon"),
	exact("\x00\x00\x02\x00", "image/x-icon"),
	exact("BM", "image/bmp"),
	exact("GIF87a", "image/gif"),
	exact("GIF89a", "image/gif"),
	masked("RIFF\x00\x00\x00\x00WEBPVP", "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF\xFF\xFF", "image/webp"),
	exact("\x89PNG\x0D\x0A\x1A\x0A", "image/png"),
	exact("\xFF\xD8\xFF", "image/jpeg"),
	masked("FORM\x00\x00\x00\x00AIFF", "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF", "audio/aiff"),
	exact("ID3", "audio/mpeg"),
	exact("OggS\x00", "application/ogg"),
	exact("MThd\x00\x00\x00\x06", "audio/midi"),
	masked("RIFF\x00\x00\x00\x00AVI ", "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF", "video/avi"),
	masked("RIFF\x00\x00\x00\x00WAVE", "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF", "audio/wave"),
	// mp4 (a box size, then "ftyp") always starts with binary bytes,
	// which the text rule refuses anyway.
	exact("\x1A\x45\xDF\xA3", "video/webm"),
	{pat: append(make([]byte, 34), "LP"...), mask: append(make([]byte, 34), 0xFF, 0xFF), typ: "application/vnd.ms-fontobject"},
	exact("\x00\x01\x00\x00", "font/ttf"),
	exact("OTTO", "font/otf"),
	exact("ttcf", "font/collection"),
	exact("wOFF", "font/woff"),
	exact("wOF2", "font/woff2"),
	exact("\x1F\x8B\x08", "application/x-gzip"),
	exact("PK\x03\x04", "application/zip"),
	exact("Rar!\x1A\x07\x00", "application/x-rar-compressed"),
	exact("Rar!\x1A\x07\x01\x00", "application/x-rar-compressed"),
	exact("\x00\x61\x73\x6D", "application/wasm"),
}

func sniff(data []byte) string {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	ws := 0
	for ws < len(data) && isSniffWS(data[ws]) {
		ws++
	}
	for _, tag := range htmlTags {
		if htmlMatch(data[ws:], tag) {
			return "text/html"
		}
	}
	for _, s := range signatures {
		if s.match(data, ws) {
			return s.typ
		}
	}
	for _, b := range data[ws:] {
		if b <= 0x08 || b == 0x0B || (0x0E <= b && b <= 0x1A) || (0x1C <= b && b <= 0x1F) {
			return octetStream
		}
	}
	return "text/plain"
}

func isSniffWS(b byte) bool {
	return b == '\t' || b == '\n' || b == '\x0c' || b == '\r' || b == ' '
}

// htmlMatch reports whether data opens with tag, compared without case,
// followed by a space or ">".
func htmlMatch(data []byte, tag string) bool {
	if len(data) < len(tag)+1 {
		return false
	}
	for i := range len(tag) {
		b, d := tag[i], data[i]
		if 'A' <= b && b <= 'Z' {
			d &= 0xDF
		}
		if b != d {
			return false
		}
	}
	return bytes.IndexByte([]byte(" >"), data[len(tag)]) >= 0
}
