package client_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/timeouts"
)

func newBridge(t *testing.T, respond responder) *bridge {
	t.Helper()
	br, err := startBridge(filepath.Join(t.TempDir(), "askbridge.db"), "127.0.0.1:0", respond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Stop() })
	return br
}

func newClient(br *bridge) *client.Client {
	c := client.New(br.URL, "")
	c.RetryDelay = 20 * time.Millisecond
	return c
}

// pendingID waits until the bridge holds exactly one pending question and
// returns it.
func pendingID(t *testing.T, br *bridge) *broker.Question {
	t.Helper()
	for range 500 {
		qs, err := br.B.List(context.Background(), broker.Filter{Status: broker.StatusPending})
		if err == nil && len(qs) == 1 {
			return qs[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no pending question appeared")
	return nil
}

var deploy = client.Question{
	Question: "Deploy now?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}},
	Default: []string{"No"}, Timeout: "10s",
}

// Ask maps every outcome to the Result and a typed error.
func TestAskOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		respond responder
		// act, when set, ends the question from outside while Ask waits.
		act    func(t *testing.T, br *bridge, c *client.Client)
		q      func(client.Question) client.Question
		status client.Status
		is     error
		check  func(t *testing.T, res *client.Result, err error)
	}{
		{name: "answered", respond: answer("1"), status: client.StatusAnswered, check: func(t *testing.T, res *client.Result, _ error) {
			if a := res.Answers["Deploy now?"]; len(a.Selected) != 1 || a.Selected[0] != "Yes" || res.AnsweredBy == nil || res.AnsweredBy.Name != "ana" || a.AnsweredBy == nil || *a.AnsweredBy != *res.AnsweredBy {
				t.Errorf("answer = %+v by %+v", a, res.AnsweredBy)
			}
		}},
		{name: "skipped", respond: answer("skip"), status: client.StatusAnswered, check: func(t *testing.T, res *client.Result, _ error) {
			if a := res.Answers["Deploy now?"]; !a.Skipped || len(a.Selected) != 0 || a.AnsweredBy == nil || a.AnsweredBy.Name != "ana" {
				t.Errorf("answer = %+v, want skipped by ana", a)
			}
		}},
		{name: "declined", respond: func(q *broker.Question) []string { return []string{"/decline " + q.ID + " wrong branch"} },
			status: client.StatusDeclined, is: client.ErrDeclined, check: func(t *testing.T, _ *client.Result, err error) {
				var de *client.DeclinedError
				if !errors.As(err, &de) || de.Reason != "wrong branch" || de.NotReady {
					t.Errorf("error = %#v", err)
				}
			}},
		{name: "not ready", respond: func(q *broker.Question) []string { return []string{"/discuss " + q.ID + " which region?"} },
			status: client.StatusDeclined, is: client.ErrDeclined, check: func(t *testing.T, _ *client.Result, err error) {
				var de *client.DeclinedError
				if !errors.As(err, &de) || !de.NotReady || !strings.Contains(de.Reason, "which region?") {
					t.Errorf("error = %#v", err)
				}
			}},
		{name: "timed out with the default", act: func(t *testing.T, br *bridge, _ *client.Client) {
			// The sweeper is a function of the time: sweep at the
			// deadline instead of waiting for it.
			q := pendingID(t, br)
			sw := timeouts.New(br.B, br.sb.Store, timeouts.Options{})
			if st, err := sw.Sweep(context.Background(), q.ExpiresAt); err != nil || st.TimedOut != 1 {
				t.Errorf("sweep at the deadline: %+v, %v", st, err)
			}
		}, status: client.StatusTimedOut, check: func(t *testing.T, res *client.Result, err error) {
			// The default answers the question: no error, but the
			// result says nobody chose it.
			if res.Fallback != client.FallbackDefault || res.AnsweredBy != nil {
				t.Errorf("fallback %q, answered by %+v; want default and nobody", res.Fallback, res.AnsweredBy)
			}
			if a := res.Answers["Deploy now?"]; len(a.Selected) != 1 || a.Selected[0] != "No" || !a.Defaulted || a.AnsweredBy != nil {
				t.Errorf("the result does not carry the default: %+v", a)
			}
		}},
		{name: "timed out without a default", q: func(q client.Question) client.Question { q.Default = nil; return q },
			act: func(t *testing.T, br *bridge, _ *client.Client) {
				q := pendingID(t, br)
				if st, err := timeouts.New(br.B, br.sb.Store, timeouts.Options{}).Sweep(context.Background(), q.ExpiresAt); err != nil || st.TimedOut != 1 {
					t.Errorf("sweep at the deadline: %+v, %v", st, err)
				}
			}, status: client.StatusTimedOut, is: client.ErrTimeout, check: func(t *testing.T, res *client.Result, err error) {
				var te *client.TimeoutError
				if !errors.As(err, &te) || te.Fallback != client.FallbackNone || te.UsedDefault() || len(res.Answers) != 0 {
					t.Errorf("error = %#v, answers %+v", err, res.Answers)
				}
				if want := `askbridge: question ` + res.ID + ` timed out without an answer`; err.Error() != want {
					t.Errorf("error text %q, want %q", err, want)
				}
			}},
		{name: "cancelled", act: func(t *testing.T, br *bridge, c *client.Client) {
			q := pendingID(t, br)
			if _, err := c.Cancel(context.Background(), q.ID, "plan changed"); err != nil {
				t.Error(err)
			}
		}, status: client.StatusCancelled, is: client.ErrCancelled, check: func(t *testing.T, _ *client.Result, err error) {
			if !strings.Contains(err.Error(), "plan changed") {
				t.Errorf("error %q lacks the reason", err)
			}
		}},
		{name: "session cancelled", q: func(q client.Question) client.Question { q.SessionID = "s9"; return q },
			act: func(t *testing.T, br *bridge, c *client.Client) {
				pendingID(t, br)
				if got, err := c.CancelSession(context.Background(), "s9", ""); err != nil || len(got) != 1 {
					t.Errorf("CancelSession = %d, %v", len(got), err)
				}
			}, status: client.StatusCancelled, is: client.ErrCancelled},
		{name: "unsupported", q: func(q client.Question) client.Question { q.Route = "nowhere"; return q },
			status: client.StatusUnsupported, is: client.ErrUnsupported, check: func(t *testing.T, _ *client.Result, err error) {
				if !strings.Contains(err.Error(), `"sms"`) {
					t.Errorf("error %q does not name the missing channel", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := newBridge(t, tt.respond)
			c := newClient(br)
			q := deploy
			if tt.q != nil {
				q = tt.q(q)
			}
			if tt.act != nil {
				acted := make(chan struct{})
				go func() { defer close(acted); tt.act(t, br, c) }()
				defer func() { <-acted }()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			res, err := c.Ask(ctx, q)
			if res == nil {
				t.Fatalf("Ask returned no result: %v", err)
			}
			if res.Status != tt.status {
				t.Fatalf("status = %s, want %s", res.Status, tt.status)
			}
			if (tt.is == nil) != (err == nil) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Fatalf("error = %v, want errors.Is %v", err, tt.is)
			}
			for _, other := range []error{client.ErrDeclined, client.ErrTimeout, client.ErrCancelled, client.ErrUnsupported} {
				if other != tt.is && errors.Is(err, other) {
					t.Errorf("error %v also matches %v", err, other)
				}
			}
			if tt.check != nil {
				tt.check(t, res, err)
			}
		})
	}
}

// A bad question is refused with the field named, and no result.
func TestAskBadInput(t *testing.T) {
	br := newBridge(t, nil)
	c := newClient(br)
	tests := []struct {
		name  string
		q     client.Question
		field string
	}{
		{"callback not http", client.Question{Question: "Go?", CallbackURL: "ftp://localhost/x"}, "callback_url"},
		{"one option", client.Question{Question: "Go?", Options: []client.Option{{Label: "Yes"}}}, "options"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Ask(context.Background(), tt.q)
			var ae *client.APIError
			if res != nil || !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Field, tt.field) {
				t.Errorf("Ask = %v, %v; want a 400 naming %s", res, err, tt.field)
			}
		})
	}
}

// Ask re-attaches to the same question when the server restarts while it
// waits, and returns the answer given after the restart.
func TestAskReattachesAfterRestart(t *testing.T) {
	br, err := startBridge(filepath.Join(t.TempDir(), "askbridge.db"), "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(br)
	type outcome struct {
		res *client.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.Ask(context.Background(), deploy)
		done <- outcome{res, err}
	}()
	q := pendingID(t, br)

	br, err = br.Restart(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(br.Stop)
	reply := br.B.HandleInbound(context.Background(), broker.Inbound{Channel: "auto", Chat: "room", User: "u2", Name: "bo", Text: "/answer " + q.ID + " 1"})
	if !reply.OK {
		t.Fatalf("answer after restart: %s", reply.Text)
	}
	select {
	case o := <-done:
		if o.err != nil || o.res.ID != q.ID || o.res.Answers["Deploy now?"].Selected[0] != "Yes" {
			t.Fatalf("Ask after restart = %+v, %v; want question %s answered Yes", o.res, o.err, q.ID)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Ask did not return after the restart")
	}
	qs, _ := br.B.List(context.Background(), broker.Filter{})
	if len(qs) != 1 {
		t.Errorf("the store holds %d questions, want 1 (re-attach must not ask again)", len(qs))
	}
}

// The event stream resumes across a server restart without losing or
// repeating a resolution; AskAsync and Wait work in pending mode.
func TestEventsAcrossRestart(t *testing.T) {
	br, err := startBridge(filepath.Join(t.TempDir(), "askbridge.db"), "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(br)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// From the start of the (new) log: a stream without an id starts
	// from the moment it connects, which on a busy machine may come after
	// the first answer below.
	events, errc := c.Events(ctx, client.EventsFilter{SessionID: "s1", LastEventID: "0"})
	var ids []string
	for i := range 4 {
		q := deploy
		q.SessionID = "s1"
		q.Question = []string{"Deploy A?", "Deploy B?", "Deploy C?", "Deploy D?"}[i]
		id, err := c.AskAsync(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	answerOn := func(br *bridge, id string) {
		t.Helper()
		if r := br.B.HandleInbound(ctx, broker.Inbound{Channel: "auto", Chat: "room", User: "u1", Text: "/answer " + id + " 1"}); !r.OK {
			t.Fatalf("answer %s: %s", id, r.Text)
		}
	}
	next := func() client.Event {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case err := <-errc:
			t.Fatalf("stream ended: %v", err)
		case <-ctx.Done():
			t.Fatal("no event")
		}
		return client.Event{}
	}
	var seen []string
	answerOn(br, ids[0])
	seen = append(seen, next().Result.ID)
	answerOn(br, ids[1])

	br, err = br.Restart(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(br.Stop)
	answerOn(br, ids[2])
	res, err := c.Wait(ctx, ids[2])
	if err != nil || res.Status != client.StatusAnswered {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	answerOn(br, ids[3])
	for len(seen) < 4 {
		seen = append(seen, next().Result.ID)
	}
	if strings.Join(seen, ",") != strings.Join(ids, ",") {
		t.Errorf("events %v, want each resolution once in order: %v", seen, ids)
	}
	select {
	case ev := <-events:
		t.Errorf("unexpected extra event %+v", ev)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestEventsBadLastEventID(t *testing.T) {
	br := newBridge(t, nil)
	c := newClient(br)
	events, errc := c.Events(context.Background(), client.EventsFilter{LastEventID: "yesterday"})
	err := <-errc
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Field != "Last-Event-ID" {
		t.Errorf("error = %v, want a 400 naming Last-Event-ID", err)
	}
	if _, open := <-events; open {
		t.Error("events channel still open")
	}
}

func TestFormRefusesTooManyPrompts(t *testing.T) {
	c := client.New("http://127.0.0.1:1", "")
	f := client.NewForm().Text("a").Text("b").Text("c").Text("d").Text("e")
	if _, err := c.AskForm(context.Background(), f); err == nil || !strings.Contains(err.Error(), "1 to 4 prompts") {
		t.Errorf("AskForm with 5 prompts = %v", err)
	}
}

// sweepWhenAnswered waits until the pending question has n prompts
// answered, then sweeps at its deadline.
func sweepWhenAnswered(t *testing.T, br *bridge, n int) {
	t.Helper()
	for range 500 {
		q := pendingID(t, br)
		if q.ProgressCount() == n {
			if st, err := timeouts.New(br.B, br.sb.Store, timeouts.Options{}).Sweep(context.Background(), q.ExpiresAt); err != nil || st.TimedOut != 1 {
				t.Errorf("sweep at the deadline: %+v, %v", st, err)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the dialog never had %d answered prompts", n)
}

// A dialog that times out keeps what people answered, with who, and
// takes the defaults of the rest; the error says which prompts have no
// answer.
func TestAskFormTimesOutWithAnswers(t *testing.T) {
	tests := []struct {
		name          string
		cacheDefault  []string
		wantErr       string
		wantFallback  string
		wantDefaulted []string
	}{
		{"every unanswered prompt has a default", []string{"None"}, "", client.FallbackDefault, []string{"Which database?", "Which cache?"}},
		{"one unanswered prompt has none", nil,
			`askbridge: question %s timed out: 1 of 3 answered, 1 took the default, no answer to "Which cache?"`,
			client.FallbackPartial, []string{"Which database?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := newBridge(t, func(q *broker.Question) []string { return []string{"/answer " + q.ID + ".3 NATS"} })
			c := newClient(br)
			f := client.NewForm().
				Choice("Which database?", "Postgres", "SQLite").Default("sqlite").
				Choice("Which cache?", "Redis", "None").Default(tt.cacheDefault...).
				Choice("Which queue?", "Kafka", "NATS")
			f.Question.Timeout = "10s"
			done := make(chan struct{})
			go func() { defer close(done); sweepWhenAnswered(t, br, 1) }()
			defer func() { <-done }()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			ans, err := c.AskForm(ctx, f)
			if ans == nil {
				t.Fatalf("AskForm returned no answers: %v", err)
			}
			res := ans.Result
			if res.Status != client.StatusTimedOut || res.Fallback != tt.wantFallback {
				t.Fatalf("status %s fallback %q, want timed_out %q", res.Status, res.Fallback, tt.wantFallback)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("error %v, want none: every prompt has an answer", err)
				}
			} else {
				var te *client.TimeoutError
				if !errors.As(err, &te) || !errors.Is(err, client.ErrTimeout) || err.Error() != fmt.Sprintf(tt.wantErr, res.ID) {
					t.Fatalf("error %v, want %q", err, fmt.Sprintf(tt.wantErr, res.ID))
				}
				if !te.UsedDefault() || fmt.Sprint(te.Answered) != "[Which queue?]" || fmt.Sprint(te.Defaulted) != "[Which database?]" || fmt.Sprint(te.Unanswered) != "[Which cache?]" {
					t.Errorf("TimeoutError sorts the prompts as %+v", te)
				}
			}
			if got := ans.Choice("Which queue?"); got != "NATS" || ans.Defaulted("Which queue?") || ans.AnsweredBy("Which queue?") == nil || ans.AnsweredBy("Which queue?").Name != "ana" {
				t.Errorf("the answered prompt reads %q, defaulted %v, by %+v; want NATS by ana", got, ans.Defaulted("Which queue?"), ans.AnsweredBy("Which queue?"))
			}
			for _, q := range tt.wantDefaulted {
				if !ans.Defaulted(q) || ans.AnsweredBy(q) != nil {
					t.Errorf("%s: defaulted %v by %+v, want the default", q, ans.Defaulted(q), ans.AnsweredBy(q))
				}
			}
			if got := ans.Choice("Which database?"); got != "SQLite" {
				t.Errorf("the database default reads %q, want the option's label SQLite", got)
			}
			if res.AnsweredBy != nil {
				t.Errorf("a timeout names %+v as answering", res.AnsweredBy)
			}
		})
	}
}
