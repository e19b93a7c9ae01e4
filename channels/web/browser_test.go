package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/internal/browsertest"
)

// waitFor bounds every wait for the page: generous, since the machine is
// shared, but far below the test timeout.
const waitFor = 10 * time.Second

// newBrowser starts one headless Chromium for a whole test; tabs share it.
func newBrowser(t *testing.T) context.Context { return browsertest.New(t) }

// tab opens a new tab in the browser. With isolated, the tab gets its own
// cookie jar, like another person's browser.
func tab(t *testing.T, browser context.Context, isolated bool) context.Context {
	t.Helper()
	var opts []chromedp.ContextOption
	if isolated {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(browser, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	return ctx
}

// do runs steps in a tab with a bounded time.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the tab.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// open loads the inbox page and waits until it shows its first state.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("#inbox")), chromedp.Poll[chromedp.Void](
		`!document.getElementById('inbox').hidden || !document.getElementById('login').hidden`,
		chromedp.WithPollingTimeout(waitFor)))
}

// waitText waits until the element css matches contains want in its text,
// and fails with what the page shows instead.
func waitText(t *testing.T, ctx context.Context, css, want string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, css, want)
	c, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitFor))); err != nil {
		t.Fatalf("page: %s never showed %q (err %v); it shows: %q", css, want, err, pageText(ctx, css))
	}
}

// waitGone waits until no element matches css.
func waitGone(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	expr := fmt.Sprintf(`document.querySelector(%q) === null`, css)
	c, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitFor))); err != nil {
		t.Fatalf("page: %s is still there (err %v)", css, err)
	}
}

// pageText returns the text of the first element matching css, for
// failure messages.
func pageText(ctx context.Context, css string) string {
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(c, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.textContent : '(no element)'; })()`, css)))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return strings.Join(strings.Fields(s), " ")
}

// click clicks the element css matches, once it is visible.
func click(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	do(t, ctx, chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible))
}

// typeInto replaces the value of an input with s by typing it.
func typeInto(t *testing.T, ctx context.Context, css, s string) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(css)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ''`, css)),
		chromedp.SendKeys(chromedp.CSS(css), s, chromedp.NodeVisible))
}

// waitURL waits until the tab has navigated to url and finished loading.
func waitURL(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	last := ""
	for time.Now().Before(deadline) {
		c, cancel := context.WithTimeout(ctx, time.Second)
		v, err := chromedp.Run(c, chromedp.Evaluate[string](`document.readyState === 'complete' ? location.href : ''`))
		cancel()
		if err == nil && v == url {
			return
		}
		last = v
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("tab never reached %s (last at %q)", url, last)
}

// reload reloads the tab and waits until the page shows its state again.
func reload() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Reload(), chromedp.WaitReady(chromedp.CSS("#inbox")), chromedp.Poll[chromedp.Void](
		`!document.getElementById('inbox').hidden || !document.getElementById('login').hidden`,
		chromedp.WithPollingTimeout(waitFor)))
}
