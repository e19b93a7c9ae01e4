package web

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// getPage reads the inbox's page with an Accept-Language header, an
// If-None-Match and a cookie, each when given.
func getPage(t *testing.T, url, accept, etag string, c *http.Cookie) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept-Language", accept)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if c != nil {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// noscriptOf is the text of the page's <noscript> element.
func noscriptOf(t *testing.T, page string) string {
	t.Helper()
	start, end := strings.Index(page, "<noscript>"), strings.Index(page, "</noscript>")
	if start < 0 || end < start {
		t.Fatalf("no <noscript> in the page:\n%s", page)
	}
	return page[start : end+len("</noscript>")]
}

// TestNoScriptLanguage: the inbox's page says that it needs JavaScript in
// the reader's language: the browser's, the inbox's over it, a signed-in
// person's over both. Each language's page has its own ETag, which a
// browser's revalidation is answered 304 for; the rest of the page is
// the embedded file as it is.
func TestNoScriptLanguage(t *testing.T) {
	const (
		german  = `<noscript><p class="notice" lang="de">Dieser Posteingang braucht JavaScript. Sie können auch mit der Bridge-CLI antworten: <code>bridge answer ID WAHL</code>.</p></noscript>`
		english = `<noscript><p class="notice" lang="en">This inbox needs JavaScript. You can also answer with the bridge CLI: <code>bridge answer ID CHOICE</code>.</p></noscript>`
	)
	e := newEnv(t, Config{}, Options{Loopback: true})
	res, de := getPage(t, e.url, "de-DE,de;q=0.9", "", nil)
	if res.StatusCode != http.StatusOK || noscriptOf(t, de) != german {
		t.Fatalf("GET / in German: %d with\n%s\nwant\n%s", res.StatusCode, noscriptOf(t, de), german)
	}
	if ct, vary := res.Header.Get("Content-Type"), res.Header.Get("Vary"); ct != "text/html; charset=utf-8" || vary != "Accept-Language, Cookie" {
		t.Errorf("Content-Type %q, Vary %q; want text/html and Vary: Accept-Language, Cookie", ct, vary)
	}
	deTag := res.Header.Get("ETag")

	res, en := getPage(t, e.url, "", "", nil)
	if noscriptOf(t, en) != english {
		t.Fatalf("GET / in English: %s", noscriptOf(t, en))
	}
	src, err := fs.ReadFile(e.ch.static, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Replace(src, []byte(`<p class="notice">This inbox`), []byte(`<p class="notice" lang="en">This inbox`), 1); en != string(want) {
		t.Fatalf("the English page differs from index.html beyond the noscript line's lang:\n%s", en)
	}
	if enTag := res.Header.Get("ETag"); enTag == "" || deTag == "" || enTag == deTag {
		t.Fatalf("ETags: English %q, German %q; want two, different", enTag, deTag)
	}

	// Revalidation: the German copy is current for a German reader, not
	// for an English one.
	if res, _ := getPage(t, e.url, "de", deTag, nil); res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the German ETag, in German: %d, want 304", res.StatusCode)
	}
	if res, body := getPage(t, e.url, "en", deTag, nil); res.StatusCode != http.StatusOK || noscriptOf(t, body) != english {
		t.Errorf("If-None-Match with the German ETag, in English: %d, want 200 with the English page", res.StatusCode)
	}

	// The inbox's locale comes before the browser's.
	ja := newEnv(t, Config{Language: languageOf("ja")}, Options{Loopback: true})
	if _, body := getPage(t, ja.url, "de", "", nil); !strings.Contains(noscriptOf(t, body), `lang="ja">この受信箱には JavaScript が必要です。`) {
		t.Errorf("an inbox in Japanese, a German browser: %s", noscriptOf(t, body))
	}
}

// TestNoScriptPerson: a signed-in person's locale comes first.
func TestNoScriptPerson(t *testing.T) {
	setTeamTokens(t)
	people := team()
	people[0].Locale = "de"
	e := newPeopleEnv(t, Config{TokenEnv: "TEST_SHARED_TOKEN"}, true, people)
	ana := login(t, e.srv.URL, anaToken)
	if _, body := getPage(t, e.srv.URL+"/", "ja", "", ana); !strings.Contains(noscriptOf(t, body), `lang="de">Dieser Posteingang braucht JavaScript.`) {
		t.Errorf("Ana (de) with a Japanese browser: %s", noscriptOf(t, body))
	}
}

// TestNoScriptPseudo: every word of the line but the command comes from
// the catalog.
func TestNoScriptPseudo(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	_, body := getPage(t, e.url, "en-XA", "", nil)
	line := noscriptOf(t, body)
	text := pageWords(line)
	if !strings.Contains(line, `lang="en-XA"`) || !strings.Contains(text, "[") {
		t.Fatalf("no pseudo-localised line: %s", line)
	}
	if left := i18ntest.Untranslated(text, "bridge answer"); len(left) > 0 {
		t.Fatalf("words not from the catalog: %q in %s", left, text)
	}
}
