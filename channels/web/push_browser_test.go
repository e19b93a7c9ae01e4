package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

// TestPushPage checks the page side in Chromium: the manifest and its
// icons, the service worker registering at the root, a push delivered to
// it (ServiceWorker.deliverPushMessage) showing a notification with the
// question's title, text and two options, a click on the notification
// moving the open inbox to the card, the Notifications section listing
// and removing a device, and the inbox opening with its last state while
// the bridge cannot be reached. Turning notifications on is not driven
// here: pushManager.subscribe needs the browser vendor's push service,
// which headless Chromium does not reach (the promise never settles); the
// endpoint it posts to is tested in push_send_test.go.
func TestPushPage(t *testing.T) {
	e := newPushEnv(t, nil, false)
	// The page is served through a switch that can make the bridge
	// unreachable, as a lost network would.
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
		}
		e.ch.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{{Header: "Deploy", Question: "Ship release 1.4?",
		Options: []broker.Option{opt("Ship it", ""), opt("Wait", ""), opt("Cancel", "")}}}})

	t.Run("manifest and icons", func(t *testing.T) {
		res, err := http.Get(srv.URL + "/manifest.webmanifest")
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Name, StartURL, Display, ThemeColor string
			Icons                               []struct{ Src, Sizes, Type string }
		}
		err = json.NewDecoder(res.Body).Decode(&struct {
			Name       *string `json:"name"`
			StartURL   *string `json:"start_url"`
			Display    *string `json:"display"`
			ThemeColor *string `json:"theme_color"`
			Icons      any     `json:"icons"`
		}{&m.Name, &m.StartURL, &m.Display, &m.ThemeColor, &m.Icons})
		res.Body.Close()
		if err != nil || res.Header.Get("Content-Type") != "application/manifest+json" {
			t.Fatalf("manifest: %v, Content-Type %q", err, res.Header.Get("Content-Type"))
		}
		if m.Name == "" || m.StartURL != "/" || m.Display != "standalone" || m.ThemeColor == "" {
			t.Fatalf("manifest = %+v; want a name, start_url /, display standalone, a theme colour", m)
		}
		for _, size := range []string{"192", "512"} {
			res, err := http.Get(srv.URL + "/assets/icon-" + size + ".png")
			if err != nil || res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("icon %s: %v %v", size, err, res)
			}
			res.Body.Close()
		}
	})

	b := newBrowser(t)
	p := tab(t, b, false)
	regs := watchWorker(t, p, srv.URL)
	open(t, p, srv.URL+"/")
	waitText(t, p, card(q.ID), "Ship release 1.4?")

	// The service worker registers with the whole inbox as its scope and
	// takes control of the page.
	scope := evalAsync[string](t, p, `navigator.serviceWorker.ready.then(r => r.scope)`)
	if scope != srv.URL+"/" {
		t.Fatalf("service worker scope = %q; want %q", scope, srv.URL+"/")
	}
	do(t, p, chromedp.Poll[chromedp.Void](`!!navigator.serviceWorker.controller`, chromedp.WithPollingTimeout(waitFor)))
	var reg serviceworker.RegistrationID
	select {
	case reg = <-regs:
	case <-time.After(waitFor):
		t.Fatal("no ServiceWorker.workerRegistrationUpdated for the inbox's scope")
	}

	t.Run("a push shows a notification", func(t *testing.T) {
		data, _ := json.Marshal(pushMessageOf(q, time.Now(), time.UTC, ""))
		do(t, p, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
				Origin: srv.URL, RegistrationID: reg, Data: string(data)})
			return err
		}))
		pollAsync(t, p, `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.length > 0)`)
		got := evalAsync[string](t, p, `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => JSON.stringify(ns.map(n => ({
			title: n.title, body: n.body, tag: n.tag, actions: n.actions.map(a => a.title), url: n.data.url}))))`)
		want := `[{"title":"Deploy","body":"Ship release 1.4?","tag":"q-` + q.ID + `","actions":["Ship it","Wait"],"url":"/#q-` + q.ID + `"}]`
		if got != want {
			t.Fatalf("notifications = %s\nwant %s", got, want)
		}
	})

	t.Run("a click opens the card", func(t *testing.T) {
		// Headless Chromium shows no notification to click, so the click
		// is dispatched in the service worker, on the notification the
		// push showed, as the browser does on a click of its first action.
		sw := swTarget(t, p, srv.URL+"/sw.js")
		n := evalAsync[int](t, sw, `self.registration.getNotifications().then(ns => {
			if (ns.length) self.dispatchEvent(new NotificationEvent('notificationclick', {notification: ns[0], action: 'option-1'}));
			return ns.length;
		})`)
		if n != 1 {
			t.Fatalf("the worker sees %d notifications; want 1", n)
		}
		do(t, p, chromedp.Poll[chromedp.Void](`location.hash === '#q-`+q.ID+`' && document.activeElement && document.activeElement.id === 'q-`+q.ID+`'`,
			chromedp.WithPollingTimeout(waitFor)))
		if left := evalAsync[int](t, p, `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.length)`); left != 0 {
			t.Errorf("%d notifications left after the click; want it closed", left)
		}
	})

	t.Run("the page lists and removes devices", func(t *testing.T) {
		ps := newPushService(t, "", "")
		tablet := ps.newDevice("local", "Tablet")
		if err := e.ch.push.store.SavePushSubscription(context.Background(), tablet); err != nil {
			t.Fatal(err)
		}
		do(t, p, reload())
		waitText(t, p, "#push-devices", "Tablet")
		click(t, p, "#push-devices button")
		waitGone(t, p, "#push-devices li")
		if has, err := e.ch.HasPushSubscription(context.Background(), []string{"local"}); err != nil || has {
			t.Fatalf("the tablet is still subscribed (%v, %v)", has, err)
		}
	})

	t.Run("offline the inbox shows its last state", func(t *testing.T) {
		do(t, p, reload()) // read through the worker, which keeps it
		waitText(t, p, card(q.ID), "Ship release 1.4?")
		down.Store(true)
		t.Cleanup(func() { down.Store(false) })
		if ok := evalAsync[bool](t, p, `fetch('/inbox/push/key').then(() => true, () => false)`); ok {
			t.Fatal("the bridge still answers with the switch down")
		}
		do(t, p, reload())
		waitText(t, p, card(q.ID), "Ship release 1.4?")
	})
}

// swTarget returns a context on the service worker whose script is url.
func swTarget(t *testing.T, p context.Context, url string) context.Context {
	t.Helper()
	infos, err := chromedp.CallBrowser(p, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos.TargetInfos {
		if info.Type == "service_worker" && info.URL == url {
			ctx, cancel := chromedp.NewContext(p, chromedp.WithTargetID(info.TargetID))
			t.Cleanup(cancel)
			return ctx
		}
	}
	t.Fatalf("no service worker target at %s", url)
	return nil
}

// evalAsync evaluates a JavaScript expression that gives a promise, and
// returns what the promise resolves to.
func evalAsync[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return eval0(t, ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// pollAsync waits until a JavaScript expression that gives a promise
// resolves to true.
func pollAsync(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		c, cancel := context.WithTimeout(ctx, waitFor)
		ok, err := chromedp.Run(c, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("page: %s never held (last err %v)", expr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSignOutForgetsKeptState: the service worker keeps the inbox's state
// for offline use, and forgets it when the person signs out, so that the
// next person at the browser cannot read it.
func TestSignOutForgetsKeptState(t *testing.T) {
	const token = "correct-horse-battery-staple-42"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN", Name: "ops"}, Options{Loopback: false})
	q := e.ask(t, &broker.AskRequest{Question: "Restart the workers?", Options: []broker.Option{opt("Restart", ""), opt("Leave them", "")}})

	p := tab(t, newBrowser(t), true)
	open(t, p, e.url)
	typeInto(t, p, "#token", token+"\n")
	waitText(t, p, card(q.ID), "Restart the workers?")
	do(t, p, chromedp.Poll[chromedp.Void](`!!navigator.serviceWorker.controller`, chromedp.WithPollingTimeout(waitFor)))
	do(t, p, reload())
	waitText(t, p, card(q.ID), "Restart the workers?")
	const kept = `caches.open('askbridge-inbox-v1').then(c => c.match('/inbox/state', { ignoreSearch: true })).then(r => r ? r.text() : '')`
	if s := evalAsync[string](t, p, kept); !strings.Contains(s, "Restart the workers?") {
		t.Fatalf("the worker kept %q; want the state with the question", s)
	}
	click(t, p, "#signout")
	waitText(t, p, "#login-error", "Signed out")
	if s := evalAsync[string](t, p, kept); s != "" {
		t.Fatalf("after sign-out the worker still keeps %q", s)
	}
}

// watchWorker lets the tab show notifications from origin, turns on the
// tab's service-worker events, and returns the registrations of the
// worker whose scope is the whole inbox (origin + "/") as they appear:
// what a push is delivered to.
func watchWorker(t *testing.T, p context.Context, origin string) <-chan serviceworker.RegistrationID {
	t.Helper()
	if _, err := chromedp.CallBrowser(p, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: origin,
	}); err != nil {
		t.Fatalf("grant notifications: %v", err)
	}
	regs := make(chan serviceworker.RegistrationID, 16)
	if err := chromedp.Listen(p, func(ev any) {
		if u, ok := ev.(*serviceworker.EventWorkerRegistrationUpdated); ok {
			for _, r := range u.Registrations {
				if r.ScopeURL == origin+"/" && !r.IsDeleted {
					select {
					case regs <- r.RegistrationID:
					default:
					}
				}
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	do(t, p, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, serviceworker.Enable, cdp.Empty{})
		return err
	}))
	return regs
}
