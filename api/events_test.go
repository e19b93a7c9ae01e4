package api

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// evEnv is an API server on a broker with a real SQLite store.
type evEnv struct {
	b   *broker.Broker
	srv *httptest.Server
}

func newEvEnv(t *testing.T, keys ...Key) *evEnv {
	t.Helper()
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute("test", "c1"))
	b.Register(brokertest.NewChannel("test"))
	srv := New(Config{Loopback: true, AgentKeys: keys, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	return &evEnv{b: b.Broker, srv: hs}
}

// ask stores a question of agent in session and returns its id.
func (e *evEnv) ask(t *testing.T, agent, session, callback string) string {
	t.Helper()
	q, _, err := e.b.Ask(context.Background(), agent, &broker.AskRequest{
		SessionID: session, Question: "Ship it?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}, CallbackURL: callback,
	})
	if err != nil {
		t.Fatal(err)
	}
	return q.ID
}

func (e *evEnv) answer(t *testing.T, id string) {
	t.Helper()
	_, err := e.b.Resolve(context.Background(), id, broker.Resolution{
		Status: broker.StatusAnswered, Answers: map[string]broker.Answer{"Ship it?": {Selected: []string{"Yes"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sseEvent is one event read from a stream; comment holds a comment line.
type sseEvent struct {
	id, event, data, comment string
}

// openStream connects to the event stream and sends what it reads to the
// returned channel until the test closes the stream with the returned
// function.
func openStream(t *testing.T, url string, header http.Header) (<-chan sseEvent, func(), *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	out := make(chan sseEvent, 64)
	if resp.StatusCode != http.StatusOK {
		cancel()
		close(out)
		return out, func() {}, resp
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					out <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				out <- sseEvent{comment: strings.TrimSpace(line[1:])}
			default:
				k, v, _ := strings.Cut(line, ":")
				v = strings.TrimPrefix(v, " ")
				switch k {
				case "id":
					ev.id = v
				case "event":
					ev.event = v
				case "data":
					ev.data = v
				}
			}
		}
	}()
	closeFn := func() { cancel(); resp.Body.Close(); <-done }
	t.Cleanup(closeFn)
	return out, closeFn, resp
}

// nextEvent returns the next resolved event, skipping comments.
func nextEvent(t *testing.T, evs <-chan sseEvent) (sseEvent, broker.Result) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-evs:
			if !ok {
				t.Fatal("stream ended")
			}
			if ev.comment != "" || ev.event == "" {
				continue
			}
			var res broker.Result
			if err := json.Unmarshal([]byte(ev.data), &res); err != nil {
				t.Fatalf("event data %q: %v", ev.data, err)
			}
			return ev, res
		case <-timeout:
			t.Fatal("no event within 10 s")
		}
	}
}

// A client that disconnects and resumes with Last-Event-ID sees every
// resolution exactly once, in order, whether it happened while connected
// or while away.
func TestEventsResumeExactlyOnceInOrder(t *testing.T) {
	e := newEvEnv(t)
	var ids []string
	for range 8 {
		ids = append(ids, e.ask(t, LocalAgent, "s1", ""))
	}
	var seen []string
	lastID := ""

	evs, closeStream, _ := openStream(t, e.srv.URL+"/v1/events", nil)
	for _, id := range ids[:3] {
		e.answer(t, id)
		ev, res := nextEvent(t, evs)
		if ev.event != "resolved" || res.Status != broker.StatusAnswered {
			t.Fatalf("event %+v, want a resolved event with an answered result", ev)
		}
		seen, lastID = append(seen, res.ID), ev.id
	}
	closeStream()

	for _, id := range ids[3:6] { // while disconnected
		e.answer(t, id)
	}
	// Resume with the header: the missed ones, then a live one.
	evs, closeStream, _ = openStream(t, e.srv.URL+"/v1/events", http.Header{"Last-Event-Id": {lastID}})
	for range 3 {
		_, res := nextEvent(t, evs)
		seen = append(seen, res.ID)
	}
	e.answer(t, ids[6])
	ev, res := nextEvent(t, evs)
	seen, lastID = append(seen, res.ID), ev.id
	closeStream()

	// Resume with the query parameter: nothing is replayed twice.
	evs, closeStream, _ = openStream(t, e.srv.URL+"/v1/events?last_event_id="+lastID, nil)
	defer closeStream()
	e.answer(t, ids[7])
	_, res = nextEvent(t, evs)
	seen = append(seen, res.ID)

	if strings.Join(seen, ",") != strings.Join(ids, ",") {
		t.Errorf("the client saw %v, want every resolution once in order: %v", seen, ids)
	}
}

// Streams carry only the agent's own questions, and only the session
// asked for; a stream of everything replays from Last-Event-ID 0.
func TestEventsFilter(t *testing.T) {
	tests := []struct {
		name, url string
		want      func(mine, other string) []string
	}{
		{"all of mine", "/v1/events?last_event_id=0", func(mine, other string) []string { return []string{other, mine} }},
		{"one session", "/v1/events?last_event_id=0&session_id=s1", func(mine, _ string) []string { return []string{mine} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEvEnv(t, Key{Name: "a1", Secret: "k1"}, Key{Name: "a2", Secret: "k2"})
			mine := e.ask(t, "a1", "s1", "")
			other := e.ask(t, "a1", "s2", "")
			foreign := e.ask(t, "a2", "s1", "")
			for _, id := range []string{foreign, other, mine} {
				e.answer(t, id)
			}
			want := tt.want(mine, other)
			evs, closeStream, _ := openStream(t, e.srv.URL+tt.url, http.Header{"Authorization": {"Bearer k1"}})
			defer closeStream()
			var got []string
			for range want {
				_, res := nextEvent(t, evs)
				got = append(got, res.ID)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("events %v, want %v", got, want)
			}
			// Nothing else follows: a fresh question of this agent and
			// session shows up next, not the foreign one.
			next := e.ask(t, "a1", "s1", "")
			e.answer(t, next)
			if _, res := nextEvent(t, evs); res.ID != next {
				t.Errorf("next event is %s, want %s", res.ID, next)
			}
		})
	}
}

func TestEventsRejectsBadLastEventID(t *testing.T) {
	e := newEvEnv(t)
	tests := []struct {
		name   string
		query  string
		header string
		field  string
	}{
		{"header not a number", "", "abc", "Last-Event-ID"},
		{"header negative", "", "-4", "Last-Event-ID"},
		{"query not a number", "?last_event_id=1.5", "", "last_event_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Last-Event-ID", tt.header)
			}
			_, _, resp := openStream(t, e.srv.URL+"/v1/events"+tt.query, h)
			defer resp.Body.Close()
			var body errorBody
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != http.StatusBadRequest || body.Error.Field != tt.field || !strings.Contains(body.Error.Message, tt.field) {
				t.Errorf("got %d %+v, want 400 naming %s", resp.StatusCode, body.Error, tt.field)
			}
		})
	}
}

func TestEventsHeartbeat(t *testing.T) {
	eventHeartbeat.Store(int64(20 * time.Millisecond))
	t.Cleanup(func() { eventHeartbeat.Store(0) })
	e := newEvEnv(t)
	evs, closeStream, resp := openStream(t, e.srv.URL+"/v1/events", nil)
	defer closeStream()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-evs:
			if ev.comment == "heartbeat" {
				return
			}
		case <-timeout:
			t.Fatal("no heartbeat")
		}
	}
}

// getJSON fetches url as agent "local" and decodes the answer.
func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode
}

// Once resolved, a question never shows as pending again: not by id, not
// in the pending list, not in the session list, not in the event stream,
// and a later resolution attempt changes nothing.
func TestResolutionNeverPendingAgain(t *testing.T) {
	tests := []struct {
		name string
		res  func(q *broker.Question) broker.Resolution
		want broker.Status
	}{
		{"answered", func(*broker.Question) broker.Resolution {
			return broker.Resolution{Status: broker.StatusAnswered, Answers: map[string]broker.Answer{"Ship it?": {Selected: []string{"No"}}}}
		}, broker.StatusAnswered},
		{"declined", func(*broker.Question) broker.Resolution {
			return broker.Resolution{Status: broker.StatusDeclined, Reason: "not now"}
		}, broker.StatusDeclined},
		{"timed out", func(q *broker.Question) broker.Resolution { return broker.TimedOut(q, time.Now()) }, broker.StatusTimedOut},
		{"cancelled", func(*broker.Question) broker.Resolution {
			return broker.Resolution{Status: broker.StatusCancelled, Reason: "agent moved on"}
		}, broker.StatusCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEvEnv(t)
			ctx := context.Background()
			id := e.ask(t, LocalAgent, "s1", "")
			still := e.ask(t, LocalAgent, "s1", "")
			q, err := e.b.Get(ctx, LocalAgent, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.b.Resolve(ctx, id, tt.res(q)); err != nil {
				t.Fatal(err)
			}
			// A second resolution loses, whatever it is.
			if _, err := e.b.Resolve(ctx, id, broker.Resolution{Status: broker.StatusAnswered, Answers: map[string]broker.Answer{"Ship it?": {Selected: []string{"Yes"}}}}); err == nil {
				t.Fatal("a second resolution succeeded")
			}
			resp, err := http.Post(e.srv.URL+"/v1/questions/"+id+"/cancel", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusConflict {
				t.Errorf("cancel after resolution: %d, want 409", resp.StatusCode)
			}

			var one broker.Result
			if getJSON(t, e.srv.URL+"/v1/questions/"+id, &one); one.Status != tt.want {
				t.Errorf("by id: %s, want %s", one.Status, tt.want)
			}
			var pending listBody
			getJSON(t, e.srv.URL+"/v1/questions?session_id=s1&status=pending", &pending)
			if len(pending.Questions) != 1 || pending.Questions[0].ID != still {
				t.Errorf("pending list = %+v, want only %s", pending.Questions, still)
			}
			var session listBody
			getJSON(t, e.srv.URL+"/v1/questions?session_id=s1", &session)
			for _, r := range session.Questions {
				if r.ID == id && r.Status != tt.want {
					t.Errorf("session list shows %s as %s, want %s", id, r.Status, tt.want)
				}
			}
			evs, closeStream, _ := openStream(t, e.srv.URL+"/v1/events?last_event_id=0", nil)
			defer closeStream()
			e.answer(t, still)
			_, first := nextEvent(t, evs)
			_, second := nextEvent(t, evs)
			if first.ID != id || first.Status != tt.want || second.ID != still {
				t.Errorf("events = %s %s, %s; want %s %s, then %s", first.ID, first.Status, second.ID, id, tt.want, still)
			}
		})
	}
}

// The delivery status of a callback is visible to the asking agent only.
func TestDeliveriesEndpoint(t *testing.T) {
	e := newEvEnv(t, Key{Name: "a1", Secret: "k1"}, Key{Name: "a2", Secret: "k2"})
	withHook := e.ask(t, "a1", "", "http://127.0.0.1:1/hook")
	without := e.ask(t, "a1", "", "")
	e.answer(t, withHook)
	get := func(id, key string) (int, deliveriesBody) {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/v1/questions/"+id+"/deliveries", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body deliveriesBody
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	tests := []struct {
		name, id, key string
		code, n       int
	}{
		{"resolved with a callback", withHook, "k1", http.StatusOK, 1},
		{"no callback", without, "k1", http.StatusOK, 0},
		{"another agent's question", withHook, "k2", http.StatusNotFound, 0},
		{"no such question", "zzzzzz", "k1", http.StatusNotFound, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(tt.id, tt.key)
			if code != tt.code || len(body.Deliveries) != tt.n {
				t.Fatalf("got %d with %d deliveries, want %d with %d", code, len(body.Deliveries), tt.code, tt.n)
			}
			if tt.n == 1 {
				d := body.Deliveries[0]
				if d.URL != "http://127.0.0.1:1/hook" || d.State != broker.DeliveryPending || d.QuestionID != tt.id {
					t.Errorf("delivery = %+v", d)
				}
			}
		})
	}
}
