package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/chromedp/chromedp"
)

// testInert: markup and script in every text an agent writes, and in a
// person's Other answer, show as literal text and never run.
func testInert(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	const (
		header   = `<b>x</b><i>`
		question = `<img src=x onerror="window.__pwned=1">Pick <script>window.__pwned=2</script>one`
		context_ = `<script>window.__pwned=3</script><b>ctx</b> & "quotes"`
		label    = `<img src=x onerror=window.__pwned=4>`
		desc     = `<svg onload="window.__pwned=5"></svg><a href="javascript:window.__pwned=6">link</a>`
		other    = `<img src=y onerror=window.__pwned=7>`
	)
	q := e.ask(t, &broker.AskRequest{
		Question: question, Header: header, Context: context_,
		Options: []broker.Option{{Label: label, Description: desc}, opt("Plain", "")},
		Default: broker.StringList{label},
	})
	p := tab(t, browser, false)
	open(t, p, e.url)
	c := card(q.ID)
	for _, tc := range []struct{ css, want string }{
		{c + " .chip", header},
		{c + " .prompt-text", question},
		{c + " .context", context_},
		{c + " .choice:nth-child(1) .label", label},
		{c + " .choice:nth-child(1) .desc", desc},
		{c + " .deadline", "default: " + label},
	} {
		waitText(t, p, tc.css, tc.want)
	}
	assertInert(t, p)

	typeInto(t, p, fmt.Sprintf("#q-%s-0-other", q.ID), other+"\n")
	waitText(t, p, past(q.ID)+" .outcome", other)
	waitText(t, p, past(q.ID)+" .prompt-text", question)
	assertInert(t, p)
	if got := e.get(t, q.ID).Answers[question].CustomText; got != other {
		t.Fatalf("stored Other text %q, want %q", got, other)
	}
}

// assertInert checks that no agent text became markup or ran.
func assertInert(t *testing.T, p context.Context) {
	t.Helper()
	if v := eval[string](t, p, `typeof window.__pwned`); v != "undefined" {
		t.Fatalf("injected script ran: window.__pwned is %s", v)
	}
	if n := eval[int](t, p, `document.querySelectorAll('main img, main script, main svg, main a, main b, main i').length`); n != 0 {
		t.Fatalf("agent text became %d elements in the page", n)
	}
}

// testForgedPost: a page on another site makes the browser post a command
// with the inbox's cookies; it is refused and nothing changes.
func testForgedPost(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Drop the production database?", Options: []broker.Option{opt("Drop it", ""), opt("Keep it", "")}})
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><form id=f method=post enctype="text/plain" action="%sinbox/command">
<input name='{"text":"%s","x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`,
			e.url, broker.FormatOption(q.Ref(0), 0))
	}))
	defer evil.Close()
	p := tab(t, browser, false)
	open(t, p, e.url) // the person has the inbox open, with its cookies
	c, cancel := context.WithTimeout(p, waitFor)
	defer cancel()
	_ = chromedp.Do(c, chromedp.Navigate(evil.URL)) // the page navigates away at once
	waitURL(t, p, e.url+"inbox/command")
	body := pageText(p, "body")
	if !strings.Contains(body, "another site") {
		t.Fatalf("forged post answered %q, want a refusal naming another site", body)
	}
	if now := e.get(t, q.ID); now.Status != broker.StatusPending {
		t.Fatalf("forged post changed the question to %s", now.Status)
	}
}
