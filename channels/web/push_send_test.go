package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// newPushEnv is newEnv with notifications: people ana and bo, the store
// given (nil: the bridge's own SQLite file) keeping the push state, and a
// push contact. With run, the inbox runs (its pusher sends in the
// background); without, the test takes new questions from the pusher's
// queue itself and sends them with notify, so that it knows when every
// push of a question was made.
func newPushEnv(t *testing.T, store broker.PushStore, run bool) *env {
	return newPushEnvOf(t, store, run, Config{}, []broker.Person{{ID: "ana", Name: "Ana"}, {ID: "bo", Name: "Bo"}})
}

// newPushEnvOf is newPushEnv with cfg (its push contact set) and people.
func newPushEnvOf(t *testing.T, store broker.PushStore, run bool, cfg Config, people []broker.Person) *env {
	t.Helper()
	dir, err := broker.NewPeople(people, nil)
	if err != nil {
		t.Fatal(err)
	}
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: Name}}}},
		func(c *broker.Config) {
			c.ReminderPoints, c.Location, c.Logger, c.People = []float64{}, time.UTC, quiet, dir
		})
	if store == nil {
		store = br.Store.(broker.PushStore)
	}
	cfg.PushContact = "mailto:ops@example.com"
	ch, err := New(cfg, br, Options{Lister: br.Store, Loopback: true, Logger: quiet,
		Location: time.UTC, People: dir, Push: store})
	if err != nil {
		t.Fatalf("new web channel: %v", err)
	}
	ch.push.backoff = func(int) time.Duration { return 0 }
	if run {
		br.Start(ch)
	} else {
		br.Register(ch)
	}
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() { ch.Close(); srv.Close() })
	return &env{b: br.Broker, st: br.Store, ch: ch, srv: srv, url: srv.URL + "/"}
}

// pushStores are the two stores the sending side is tested on.
func pushStores(t *testing.T) map[string]func(t *testing.T) broker.PushStore {
	return map[string]func(t *testing.T) broker.PushStore{
		"sqlite": func(*testing.T) broker.PushStore { return nil },
		"redis": func(t *testing.T) broker.PushStore {
			s, err := redisstore.Open(context.Background(), redistest.Shared(t), quiet)
			if err != nil {
				t.Fatalf("open redis: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
	}
}

// pushJSON calls a push endpoint with a JSON body and returns the status
// and the decoded answer.
func pushJSON(t *testing.T, e *env, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// subscribeBody is what the page posts: the browser's PushSubscription
// JSON and the device's label.
func subscribeBody(s broker.PushSubscription) map[string]any {
	return map[string]any{"endpoint": s.Endpoint, "expirationTime": nil,
		"keys": map[string]string{"p256dh": s.P256dh, "auth": s.Auth}, "device": s.Device}
}

// pushAndCollect sends the pushes of the next queued question and returns
// what every device received, by device.
func pushAndCollect(t *testing.T, e *env, ps *pushService) map[string]pushMessage {
	t.Helper()
	q := <-e.ch.push.queue
	e.ch.push.notify(context.Background(), q)
	got := map[string]pushMessage{}
	for {
		select {
		case d := <-ps.got:
			if _, dup := got[d.device]; dup {
				t.Fatalf("device %s got question %s twice", d.device, q.ID)
			}
			if d.ttl == "" || d.ttl == "0" {
				t.Errorf("push to %s has TTL %q; want the question's time left", d.device, d.ttl)
			}
			got[d.device] = d.msg
		default:
			return got
		}
	}
}

func devicesOf(got map[string]pushMessage) []string {
	var out []string
	for d := range got {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// TestPushSend follows new questions to the devices of the people who may
// answer them, through the real webpush-go against a push service that
// checks the signature and decrypts the payload, on both stores.
func TestPushSend(t *testing.T) {
	for name, store := range pushStores(t) {
		t.Run(name, func(t *testing.T) {
			e := newPushEnv(t, store(t), false)
			code, key := pushJSON(t, e, http.MethodGet, "/inbox/push/key", nil)
			if code != http.StatusOK || key["public_key"] == "" {
				t.Fatalf("GET /inbox/push/key = %d %v", code, key)
			}
			ps := newPushService(t, key["public_key"].(string), "mailto:ops@example.com")
			ctx := context.Background()

			// The open page's own user turns notifications on from the
			// page; ana and bo have devices in the store.
			local := ps.newDevice("local", "local-phone")
			if code, out := pushJSON(t, e, http.MethodPost, "/inbox/push/subscriptions", subscribeBody(local)); code != http.StatusOK {
				t.Fatalf("subscribe = %d %v", code, out)
			}
			for _, s := range []broker.PushSubscription{ps.newDevice("ana", "ana-laptop"), ps.newDevice("ana", "ana-gone"),
				ps.newDevice("bo", "bo-phone"), ps.newDevice("bo", "bo-missing"), ps.newDevice("bo", "bo-refused")} {
				if err := e.ch.push.store.SavePushSubscription(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			ps.answer("ana-laptop", http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusCreated)
			ps.answer("ana-gone", http.StatusGone)
			ps.answer("bo-missing", http.StatusNotFound)
			ps.answer("bo-refused", http.StatusBadRequest)

			// A question anyone may answer reaches everyone's devices.
			q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{{Header: "Deploy", Question: "Ship release 1.4 to production?",
				Options: []broker.Option{opt("Ship it", ""), opt("Wait", ""), opt("Cancel", "")}}}})
			got := pushAndCollect(t, e, ps)
			if want := []string{"ana-laptop", "bo-phone", "local-phone"}; !slices.Equal(devicesOf(got), want) {
				t.Fatalf("devices notified = %v; want %v", devicesOf(got), want)
			}
			m := got["local-phone"]
			want := pushMessage{ID: q.ID, Title: "Deploy", Body: "Ship release 1.4 to production?", URL: "/#q-" + q.ID,
				Actions: []pushAction{
					{Action: "option-1", Title: "Ship it", Command: "/answer " + q.ID + " 1", URL: "/#q-" + q.ID},
					{Action: "option-2", Title: "Wait", Command: "/answer " + q.ID + " 2", URL: "/#q-" + q.ID},
				}}
			if b1, b2 := mustJSON(m), mustJSON(want); b1 != b2 {
				t.Fatalf("notification =\n%s\nwant\n%s", b1, b2)
			}
			if n := ps.hitsOf("ana-laptop"); n != pushRetries {
				t.Errorf("ana-laptop was tried %d times; want %d (503 and 429 are tried again)", n, pushRetries)
			}
			if n := ps.hitsOf("bo-refused"); n != 1 {
				t.Errorf("bo-refused was tried %d times; want 1 (a 400 is not tried again)", n)
			}

			// 404 and 410 drop the subscription; other failures keep it.
			ana, _ := e.ch.push.store.PushSubscriptions(ctx, []string{"ana", "bo"})
			var left []string
			for _, s := range ana {
				left = append(left, s.Device)
			}
			if want := []string{"ana-laptop", "bo-phone", "bo-refused"}; !slices.Equal(left, want) {
				t.Fatalf("subscriptions left = %v; want %v (gone and missing dropped)", left, want)
			}

			// A question for ana reaches ana's devices only.
			e.ask(t, &broker.AskRequest{Responders: []string{"person:ana"}, Questions: []broker.Prompt{{Question: "Approve the budget?"}}})
			got = pushAndCollect(t, e, ps)
			if want := []string{"ana-laptop"}; !slices.Equal(devicesOf(got), want) {
				t.Fatalf("devices notified of ana's question = %v; want %v", devicesOf(got), want)
			}
			if m := got["ana-laptop"]; m.Title != "Question from agent" || m.Body != "Approve the budget?" || len(m.Actions) != 0 {
				t.Fatalf("free-text notification = %+v; want the agent's title, the question, no actions", m)
			}
		})
	}
}

// TestPushInBackground checks that a running inbox pushes a new question
// by itself, without the ask waiting for it.
func TestPushInBackground(t *testing.T) {
	e := newPushEnv(t, nil, true)
	_, key := pushJSON(t, e, http.MethodGet, "/inbox/push/key", nil)
	ps := newPushService(t, key["public_key"].(string), "mailto:ops@example.com")
	if err := e.ch.push.store.SavePushSubscription(context.Background(), ps.newDevice("ana", "ana-laptop")); err != nil {
		t.Fatal(err)
	}
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{{Question: "Rotate the keys?"}}})
	select {
	case d := <-ps.got:
		if d.msg.ID != q.ID || d.device != "ana-laptop" {
			t.Fatalf("got %+v; want question %s on ana-laptop", d, q.ID)
		}
	case <-time.After(2 * waitFor):
		t.Fatal("no push arrived")
	}
}

// TestPushSubscriptionsEndpoints turns notifications on, lists and removes
// devices through the page's endpoints, and refuses bad subscriptions.
func TestPushSubscriptionsEndpoints(t *testing.T) {
	e := newPushEnv(t, nil, false)
	ps := newPushService(t, "", "")
	phone := ps.newDevice("local", "Phone")
	if code, out := pushJSON(t, e, http.MethodPost, "/inbox/push/subscriptions", subscribeBody(phone)); code != http.StatusOK || out["ok"] != true {
		t.Fatalf("subscribe = %d %v", code, out)
	}
	bads := map[string]func(m map[string]any){
		"plain http":    func(m map[string]any) { m["endpoint"] = "http://push.example.com/x" },
		"no keys":       func(m map[string]any) { delete(m, "keys") },
		"unknown field": func(m map[string]any) { m["colour"] = "red" },
	}
	for name, spoil := range bads {
		b := subscribeBody(ps.newDevice("local", "other"))
		spoil(b)
		code, out := pushJSON(t, e, http.MethodPost, "/inbox/push/subscriptions", b)
		if reply, _ := out["reply"].(string); code != http.StatusBadRequest || !strings.HasPrefix(reply, "Refused: ") {
			t.Errorf("%s: subscribe = %d %v; want 400 saying why", name, code, out)
		}
	}
	code, list := pushJSON(t, e, http.MethodGet, "/inbox/push/subscriptions", nil)
	subs, _ := list["subscriptions"].([]any)
	if code != http.StatusOK || len(subs) != 1 || subs[0].(map[string]any)["device"] != "Phone" {
		t.Fatalf("list = %d %v; want the phone alone", code, list)
	}
	if code, out := pushJSON(t, e, http.MethodDelete, "/inbox/push/subscriptions", map[string]string{"endpoint": phone.Endpoint}); code != http.StatusOK {
		t.Fatalf("delete = %d %v", code, out)
	}
	if code, _ := pushJSON(t, e, http.MethodDelete, "/inbox/push/subscriptions", map[string]string{"endpoint": phone.Endpoint}); code != http.StatusNotFound {
		t.Fatalf("second delete = %d; want 404", code)
	}
	if has, err := e.ch.HasPushSubscription(context.Background(), []string{"local"}); err != nil || has {
		t.Fatalf("HasPushSubscription after delete = %v, %v", has, err)
	}
}

func mustJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// TestPushContact: web.push_contact takes a mailto: address or an https
// URL, and says so for anything else.
func TestPushContact(t *testing.T) {
	for contact, ok := range map[string]bool{
		"": true, "mailto:ops@example.com": true, "https://example.com/ops": true,
		"ops@example.com": false, "http://example.com": false,
	} {
		err := Config{PushContact: contact}.Validate()
		if (err == nil) != ok || err != nil && !strings.Contains(err.Error(), "push_contact") {
			t.Errorf("push_contact %q: Validate = %v; want ok=%v", contact, err, ok)
		}
	}
}

// TestPushOff: an inbox without a push store says so on every push
// endpoint, and Post pushes nothing.
func TestPushOff(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/inbox/push/key"}, {http.MethodGet, "/inbox/push/subscriptions"},
		{http.MethodPost, "/inbox/push/subscriptions"}, {http.MethodDelete, "/inbox/push/subscriptions"},
	} {
		var body any
		if c.method != http.MethodGet {
			body = map[string]string{"endpoint": "https://push.example.com/x"}
		}
		code, out := pushJSON(t, e, c.method, c.path, body)
		if reply, _ := out["reply"].(string); code != http.StatusNotFound || !strings.HasPrefix(reply, "Notifications are off") {
			t.Errorf("%s %s = %d %v; want 404 saying notifications are off", c.method, c.path, code, out)
		}
	}
	if has, err := e.ch.HasPushSubscription(context.Background(), []string{"local"}); err != nil || has {
		t.Fatalf("HasPushSubscription = %v, %v; want false", has, err)
	}
}
