package api_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/channels/web"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// watchBridge is one instance of the bridge: a broker with the web inbox,
// the text channel and a recording "slack" channel, its API and its
// inbox served over HTTP.
type watchBridge struct {
	api, inbox string
	b          *broker.Broker
	st         broker.Store
	slack      *brokertest.Channel
}

// subscribe turns on push notifications for person on a new device,
// as the inbox's page does, in store st.
func subscribe(t *testing.T, st broker.Store, person string) {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	b64 := base64.RawURLEncoding.EncodeToString
	err = st.(broker.PushStore).SavePushSubscription(context.Background(), broker.PushSubscription{
		Person: person, Endpoint: "http://127.0.0.1:9/push/phone", P256dh: b64(k.PublicKey().Bytes()), Auth: b64(auth), CreatedAt: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
}

// watchRoutes: "default" goes to the inbox and the text channel; "wide"
// also to Slack; "paging" escalates to "oncall" (Slack) when nobody
// watches.
func watchRoutes() map[string]broker.Route {
	quiet := []broker.Target{{Channel: web.Name}, {Channel: cli.Name}}
	return map[string]broker.Route{
		broker.DefaultRoute: {Targets: quiet},
		"wide":              {Targets: append(slices.Clone(quiet), broker.Target{Channel: "slack", Chat: "C1"})},
		"paging": {Targets: quiet, Unwatched: broker.UnwatchedEscalate,
			Policy: broker.Policy{Escalate: []broker.EscalationStep{{After: "50%", Route: "oncall"}}}},
		"oncall": {Targets: []broker.Target{{Channel: "slack", Chat: "ONCALL"}}},
	}
}

func startWatchBridge(t *testing.T, st broker.Store) *watchBridge {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	b, err := broker.New(broker.Config{Store: st, Routes: watchRoutes(), Logger: log, ReminderPoints: []float64{}})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	inbox, err := web.New(web.Config{}, b, web.Options{Logger: log, Lister: st, Loopback: true, Presence: st, Push: st.(broker.PushStore)})
	if err != nil {
		t.Fatal(err)
	}
	slack := brokertest.NewChannel("slack")
	b.Register(&cli.Channel{})
	b.Register(inbox)
	b.Register(slack)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	delivered := make(chan struct{})
	go func() { defer close(delivered); b.RunOutbox(ctx) }()
	apiSrv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: log}, b, st))
	inboxSrv := httptest.NewServer(inbox.Handler())
	t.Cleanup(func() {
		inbox.Close()
		inboxSrv.Close()
		apiSrv.Close()
		cancel()
		<-done
		<-delivered
		b.Close()
	})
	return &watchBridge{api: apiSrv.URL, inbox: inboxSrv.URL, b: b, st: st, slack: slack}
}

// openPage opens the inbox's live event stream, as an open page does, and
// returns once the bridge says it is connected; the page closes when the
// test ends.
func (w *watchBridge) openPage(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.inbox+"/inbox/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == ": connected" {
			return
		}
	}
	t.Fatalf("the event stream ended before it was connected: %v", sc.Err())
}

// ask asks on route with a pending-mode ask and returns the 202's body.
func (w *watchBridge) ask(t *testing.T, route, call string, defaults ...string) map[string]any {
	t.Helper()
	return w.askWaiting(t, route, call, "0s", defaults...)
}

// askWaiting is ask with a wait.
func (w *watchBridge) askWaiting(t *testing.T, route, call, wait string, defaults ...string) map[string]any {
	t.Helper()
	s := &server{Server: &httptest.Server{URL: w.api}}
	body := map[string]any{"question": "Ship the release?", "options": []map[string]any{{"label": "Ship"}, {"label": "Wait"}},
		"route": route, "wait": wait, "session_id": "s1", "tool_call_id": call}
	if len(defaults) > 0 {
		body["default"] = defaults
	}
	code, out := s.call(t, http.MethodPost, "/v1/questions", "", body)
	if code != http.StatusAccepted {
		t.Fatalf("ask: %d %v", code, out)
	}
	return out
}

func warningsOf(body map[string]any) []string {
	var out []string
	list, _ := body["warnings"].([]any)
	for _, w := range list {
		s, _ := w.(string)
		out = append(out, s)
	}
	return out
}

// until is the deadline as the warning writes it: the clock alone on the
// day the question was asked, with the date once it falls on the next day
// (a question asked after 23:30 with the default 30 minutes).
func until(t *testing.T, st broker.Store, body map[string]any) string {
	t.Helper()
	q, err := st.Get(context.Background(), body["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return broker.WhenText(q.ExpiresAt, q.CreatedAt, time.UTC)
}

// The ask's answer warns the agent when the question went only to the web
// inbox and the text channel and nobody watches: no page open on any
// instance, no push subscription. With unwatched: escalate the route's
// escalation is taken at once.
func TestUnwatchedWarning(t *testing.T) {
	stores := map[string]func(t *testing.T) (broker.Store, broker.Store){
		"sqlite": func(t *testing.T) (broker.Store, broker.Store) {
			// Two brokers over one store: two instances sharing it.
			st := sqlitetest.OpenStore(t)
			return st, st
		},
		"redis": func(t *testing.T) (broker.Store, broker.Store) {
			cfg := redistest.Shared(t)
			var out [2]broker.Store
			for i := range out {
				st, err := redisstore.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = st.Close() })
				out[i] = st
			}
			return out[0], out[1]
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Run("nobody watching", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				body := w.ask(t, "", "c1")
				want := "nobody is watching the web inbox; the question will wait until " + until(t, w.st, body) + ", then time out with no answer"
				if got := warningsOf(body); len(got) != 1 || got[0] != want {
					t.Fatalf("warnings = %q\nwant [%q]", got, want)
				}
				withDefault := w.ask(t, "", "c2", "Wait")
				if got := warningsOf(withDefault); len(got) != 1 || !strings.HasSuffix(got[0], ", then time out with its default (Wait)") {
					t.Fatalf("warnings with a default = %q", got)
				}
				// A repeated ask is warned again; one that waits gets the
				// warning when its wait ends with the question pending.
				again := w.askWaiting(t, "", "c1", "1ms")
				if again["id"] != body["id"] || !slices.Equal(warningsOf(again), warningsOf(body)) {
					t.Fatalf("a repeated ask = %v, want the same question and warning as %v", again, body)
				}
			})
			t.Run("answered during the wait", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				// A waiting ask hears the warning at once, in a 103 that
				// names the question, before its wait ends.
				early := make(chan http.Header, 1)
				ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
					Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
						if code == http.StatusEarlyHints {
							early <- http.Header(h)
						}
						return nil
					},
				})
				type answer struct {
					code   int
					header http.Header
					body   map[string]any
				}
				got := make(chan answer, 1)
				go func() {
					raw, _ := json.Marshal(map[string]any{"question": "Ship the release?",
						"options": []map[string]any{{"label": "Ship"}, {"label": "Wait"}}, "wait": "1m", "session_id": "s1", "tool_call_id": "c1"})
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.api+"/v1/questions", bytes.NewReader(raw))
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						got <- answer{}
						return
					}
					defer resp.Body.Close()
					var body map[string]any
					_ = json.NewDecoder(resp.Body).Decode(&body)
					got <- answer{resp.StatusCode, resp.Header, body}
				}()
				var h http.Header
				select {
				case h = <-early:
				case a := <-got:
					t.Fatalf("the ask ended (%d %v) with no early warning", a.code, a.body)
				case <-time.After(20 * time.Second):
					t.Fatal("no early warning while the ask waits")
				}
				id := h.Get(api.HeaderQuestion)
				if q, err := w.st.Get(context.Background(), id); err != nil || q.Status != broker.StatusPending {
					t.Fatalf("the 103 names %q: %v, %v; want the pending question", id, q, err)
				}
				ws, err := url.PathUnescape(h.Get(api.HeaderWarning))
				if err != nil || !strings.HasPrefix(ws, "nobody is watching the web inbox; the question will wait until ") || len(h.Values(api.HeaderWarning)) != 1 {
					t.Fatalf("the 103's warnings = %q (%v)", h.Values(api.HeaderWarning), err)
				}
				if rep := w.b.HandleInbound(context.Background(), broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + id + " Ship"}); !rep.OK {
					t.Fatalf("answer: %s", rep.Text)
				}
				a := <-got
				if a.code != http.StatusOK || a.body["status"] != "answered" || a.body["answers"] == nil || !slices.Equal(warningsOf(a.body), []string{ws}) ||
					!slices.Equal(a.header.Values(api.HeaderWarning), h.Values(api.HeaderWarning)) {
					t.Fatalf("ask answered during its wait: %d %v %v, want 200 with the answer and the warning of the 103", a.code, a.header, a.body)
				}
			})
			t.Run("HTTP/1.0", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				// HTTP/1.0 has no informational responses: the warning
				// comes with the answer alone.
				c, err := net.Dial("tcp", strings.TrimPrefix(w.api, "http://"))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				body := `{"question":"Ship the release?","options":[{"label":"Ship"},{"label":"Wait"}],"wait":"200ms","session_id":"s1","tool_call_id":"c1"}`
				fmt.Fprintf(c, "POST /v1/questions HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var out map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&out)
				if resp.StatusCode != http.StatusAccepted || len(warningsOf(out)) != 1 || len(resp.Header.Values(api.HeaderWarning)) != 1 {
					t.Fatalf("HTTP/1.0 ask: %s %v %v, want its 202 first, with the warning", resp.Status, resp.Header, out)
				}
			})
			t.Run("page open here", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				w.openPage(t)
				if got := warningsOf(w.ask(t, "", "c1")); len(got) != 0 {
					t.Fatalf("warnings with a page open = %q", got)
				}
			})
			t.Run("page open on another instance", func(t *testing.T) {
				one, two := open(t)
				w1, w2, w3 := startWatchBridge(t, one), startWatchBridge(t, two), startWatchBridge(t, two)
				// Asked before a page opened, on an instance of its own:
				// an instance trusts the store's "nobody" for a second.
				if got := warningsOf(w3.ask(t, "", "c0")); len(got) != 1 {
					t.Fatalf("warnings before any page = %q, want one", got)
				}
				w1.openPage(t)
				if got := warningsOf(w2.ask(t, "", "c1")); len(got) != 0 {
					t.Fatalf("warnings with a page open on the other instance = %q", got)
				}
			})
			t.Run("push subscription", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				// The open loopback page's user, "local", may answer a
				// question that names no responders.
				subscribe(t, one, "local")
				if got := warningsOf(w.ask(t, "", "c1")); len(got) != 0 {
					t.Fatalf("warnings with a push subscription = %q", got)
				}
			})
			t.Run("also in slack", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				if got := warningsOf(w.ask(t, "wide", "c1")); len(got) != 0 {
					t.Fatalf("warnings for a question also in Slack = %q", got)
				}
			})
			t.Run("escalate", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				body := w.ask(t, "paging", "c1")
				want := "nobody is watching the web inbox; the question was escalated to oncall at once, and waits until " + until(t, w.st, body) + ", then time out with no answer"
				if got := warningsOf(body); len(got) != 1 || got[0] != want {
					t.Fatalf("warnings = %q\nwant [%q]", got, want)
				}
				id := body["id"].(string)
				if !w.slack.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > 0 }) {
					t.Fatal("the on-call chat got no copy")
				}
				if posts := w.slack.Posts(); len(posts) != 1 || posts[0].ID != id {
					t.Fatalf("on-call posts = %d, want one copy of %s", len(posts), id)
				}
				q, err := w.st.Get(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if len(q.State.Escalations) != 1 || q.State.Escalations[0].Route != "oncall" {
					t.Fatalf("escalations = %+v, want one to oncall", q.State.Escalations)
				}
				audit, err := w.st.Audit(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(audit, func(e broker.AuditEntry) bool {
					return e.Kind == broker.AuditEscalated && e.Detail == "to oncall: nobody was watching"
				}) {
					t.Fatalf("audit = %+v, want the escalation with its reason", audit)
				}
				// Asked again: the copy in Slack tells people, and nothing
				// is escalated twice.
				if got := warningsOf(w.ask(t, "paging", "c1")); len(got) != 0 {
					t.Fatalf("warnings of the repeated ask = %q", got)
				}
				if q, _ := w.st.Get(context.Background(), id); len(q.State.Escalations) != 1 {
					t.Fatalf("escalations after the repeat = %d, want 1", len(q.State.Escalations))
				}
			})
			t.Run("escalate with a page open", func(t *testing.T) {
				one, _ := open(t)
				w := startWatchBridge(t, one)
				w.openPage(t)
				id := w.ask(t, "paging", "c1")["id"].(string)
				if q, _ := w.st.Get(context.Background(), id); len(q.State.Escalations) != 0 {
					t.Fatalf("a watched question was escalated: %+v", q.State.Escalations)
				}
			})
		})
	}
}
