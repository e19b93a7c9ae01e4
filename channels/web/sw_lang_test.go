package web

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

// TestPushUntitledInPageLanguage: a push that brings no title shows the
// words the page last read for it (GET /inbox/strings, kept by the
// service worker), here German for a German inbox.
func TestPushUntitledInPageLanguage(t *testing.T) {
	e := newPushEnvOf(t, nil, false, Config{Language: languageOf("de")}, []broker.Person{{ID: "ana", Name: "Ana"}})
	p := tab(t, newBrowser(t), false)
	regs := watchWorker(t, p, e.srv.URL)
	open(t, p, e.url)
	do(t, p, chromedp.Poll[chromedp.Void](`!!navigator.serviceWorker.controller`, chromedp.WithPollingTimeout(waitFor)))
	var reg serviceworker.RegistrationID
	select {
	case reg = <-regs:
	case <-time.After(waitFor):
		t.Fatal("no ServiceWorker.workerRegistrationUpdated for the inbox's scope")
	}
	// Read through the worker, which keeps the page's words.
	do(t, p, reload())
	pollAsync(t, p, `caches.match('/inbox/strings', { ignoreVary: true }).then(r => !!r)`)

	do(t, p, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: e.srv.URL, RegistrationID: reg, Data: `{"id":"k7m2qx","body":"Ship release 1.4?"}`})
		return err
	}))
	pollAsync(t, p, `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.length > 0)`)
	if got := evalAsync[string](t, p, `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns[0].title + ' | ' + ns[0].body)`); got != "Neue Frage | Ship release 1.4?" {
		t.Fatalf("notification %q; want the German title and the body as sent", got)
	}
}
