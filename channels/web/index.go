package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// The inbox's page (assets/index.html) is static but for one line: the
// <noscript> notice, which no script can translate, is written on the
// server in the page's language. The rest of the page puts its own words
// in place from GET /inbox/strings (strings.js).
//
// The page of each locale is made once, from the embedded file, and
// served with http.ServeContent under an ETag of its own bytes and
// "Vary: Accept-Language, Cookie": a browser revalidating its copy
// (If-None-Match) is answered 304 as long as its language's page is the
// same, and a cache never hands one language's page to another reader.

// indexPage is the inbox's page in one language.
type indexPage struct {
	body []byte
	etag string
}

// indexPages holds the inbox's page of every locale, by locale.
var indexPages = sync.OnceValues(func() (map[string]indexPage, error) {
	static, err := staticFiles()
	if err != nil {
		return nil, err
	}
	return buildIndexPages(static)
})

// buildIndexPages makes the page of every locale from index.html in
// static, its <noscript> element replaced by noscriptLine.
func buildIndexPages(static fs.FS) (map[string]indexPage, error) {
	src, err := fs.ReadFile(static, "index.html")
	if err != nil {
		return nil, fmt.Errorf("web: the inbox's page: %w", err)
	}
	start := bytes.Index(src, []byte("<noscript>"))
	end := bytes.Index(src, []byte("</noscript>"))
	if start < 0 || end < start {
		return nil, errors.New("web: the inbox's page has no <noscript> element")
	}
	end += len("</noscript>")
	pages := map[string]indexPage{}
	for _, locale := range i18n.Locales() {
		var b bytes.Buffer
		b.Write(src[:start])
		b.WriteString(noscriptLine(locale))
		b.Write(src[end:])
		sum := sha256.Sum256(b.Bytes())
		pages[locale] = indexPage{body: b.Bytes(), etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	}
	return pages, nil
}

// noscriptLine is the page's <noscript> element in locale: that the
// inbox needs JavaScript, and the command that answers without it. The
// command's words stay English; its placeholders are translated.
func noscriptLine(locale string) string {
	tr := i18n.For(locale)
	const mark = "\x00"
	text := html.EscapeString(tr.T("page.noscript", mark))
	cmd := "<code>bridge answer " + html.EscapeString(tr.T("page.noscript.args")) + "</code>"
	return `<noscript><p class="notice" lang="` + html.EscapeString(tr.Locale()) + `">` +
		strings.Replace(text, mark, cmd, 1) + `</p></noscript>`
}

// serveIndex serves the inbox's page in the language of the inbox's own
// words (lang.go): the signed-in person's, else the inbox's, else the
// browser's, else English.
func (c *Channel) serveIndex(w http.ResponseWriter, r *http.Request) {
	who, _, _ := c.auth.who(r, c.now())
	locale := c.pageLocale(readerOf(who, r))
	pages, err := indexPages()
	if err != nil {
		c.log.Error("the inbox's page", "err", err)
		http.Error(w, i18n.For(locale).T("page.broken"), http.StatusInternalServerError)
		return
	}
	p := pages[locale]
	h := w.Header()
	h.Set("Vary", "Accept-Language, Cookie")
	h.Set("ETag", p.etag)
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(p.body))
}
