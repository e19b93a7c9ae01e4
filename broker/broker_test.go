package broker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// env is a broker on a real SQLite file with one recording channel "chat"
// posting to chats "c1" and "c2".
type env struct {
	b     *broker.Broker
	st    broker.Store
	ch    *brokertest.Channel
	clock *clock
}

// clock is the clock the tests move by hand.
type clock = brokertest.Clock

func newEnv(t testing.TB, routes map[string]broker.Route) *env {
	t.Helper()
	if routes == nil {
		routes = map[string]broker.Route{
			broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}}},
		}
	}
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	ch := brokertest.NewChannel("chat")
	b, st := startBridge(t, broker.Config{Routes: routes, Now: clk.Now}, ch)
	return &env{b: b, st: st, ch: ch, clock: clk}
}

func dbQuestion() *broker.AskRequest {
	return &broker.AskRequest{
		SessionID: "s1", Question: "Which database should the service use?", Header: "Database",
		Options: []broker.Option{{Label: "Postgres (Recommended)", Description: "server"}, {Label: "SQLite"}, {Label: "MySQL"}},
	}
}

func (e *env) ask(t testing.TB, req *broker.AskRequest) *broker.Question {
	t.Helper()
	q, created, err := e.b.Ask(context.Background(), "agent", req)
	if err != nil || !created {
		t.Fatalf("ask: created=%v err=%v", created, err)
	}
	return q
}

func in(chat, user, text string) broker.Inbound {
	return broker.Inbound{Channel: "chat", Chat: chat, User: user, Name: user, Text: text}
}

func TestAskPostsToEveryTargetAndFirstAnswerWins(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	if len(e.ch.Posts()) != 2 {
		t.Fatalf("posted %d copies, want 2", len(e.ch.Posts()))
	}
	waited := make(chan *broker.Question)
	go func() {
		got, err := e.b.Wait(context.Background(), "agent", q.ID)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	r := e.b.HandleInbound(context.Background(), in("c2", "ana", "/answer "+q.ID+" 2"))
	if !r.OK || r.Text != "Recorded: SQLite" {
		t.Fatalf("reply = %+v", r)
	}
	got := <-waited
	if got.Status != broker.StatusAnswered || got.Answers[q.Prompts[0].Question].Selected[0] != "SQLite" || got.AnsweredBy.User != "ana" {
		t.Fatalf("waiter got %+v", got)
	}
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 2 }) {
		t.Fatalf("copies updated: %d, want 2", len(e.ch.Updates()))
	}
	for _, u := range e.ch.Updates() {
		if u.Status != broker.StatusAnswered {
			t.Errorf("copy updated with status %s", u.Status)
		}
	}
	late := e.b.HandleInbound(context.Background(), in("c1", "bo", "/answer "+q.ID+" 1"))
	if late.OK || !errors.Is(late.Err, broker.ErrClosed) || late.Text != "Already answered by ana at 14:00 UTC" {
		t.Fatalf("late reply = %+v", late)
	}
}

func TestHundredConcurrentAnswersOneWinner(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	const n = 100
	replies := make([]broker.Reply, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			replies[i] = e.b.HandleInbound(context.Background(), in("c1", fmt.Sprintf("u%d", i), fmt.Sprintf("/answer %s %d", q.ID, i%3+1)))
		})
	}
	wg.Wait()
	winners := 0
	var winner broker.Reply
	for _, r := range replies {
		if r.OK {
			winners++
			winner = r
		}
	}
	if winners != 1 {
		t.Fatalf("%d winners, want exactly 1", winners)
	}
	stored, _ := e.st.Get(context.Background(), q.ID)
	want := "Already answered by " + stored.AnsweredBy.User + " at 14:00 UTC"
	for _, r := range replies {
		if !r.OK && r.Text != want {
			t.Fatalf("loser told %q, want %q", r.Text, want)
		}
	}
	if winner.Question.AnsweredBy.User != stored.AnsweredBy.User {
		t.Fatalf("winner %s but stored %s", winner.Question.AnsweredBy.User, stored.AnsweredBy.User)
	}
	// The stored result never changes afterwards.
	e.b.HandleInbound(context.Background(), in("c1", "late", "/decline "+q.ID))
	after, _ := e.st.Get(context.Background(), q.ID)
	if after.Status != broker.StatusAnswered || after.AnsweredBy.User != stored.AnsweredBy.User || !after.ResolvedAt.Equal(stored.ResolvedAt) {
		t.Fatalf("result changed: %+v", after)
	}
	events, _ := e.st.Events(context.Background(), "", 0, 100)
	if len(events) != 1 {
		t.Fatalf("%d resolution events, want 1", len(events))
	}
}

func TestInboundForms(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	tests := []struct {
		name   string
		in     func(q *broker.Question) broker.Inbound
		wantOK bool
		reply  string
		picked string
		custom string
	}{
		{"number", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID+" 3") }, true, "Recorded: MySQL", "MySQL", ""},
		{"label any case", func(q *broker.Question) broker.Inbound { return in("c1", "u", "answer "+q.ID+" sqlite") }, true, "Recorded: SQLite", "SQLite", ""},
		{"bang and bot name", func(q *broker.Question) broker.Inbound { return in("c1", "u", "!answer@askbot "+q.ID+" 1") }, true, "Recorded: Postgres", "Postgres (Recommended)", ""},
		{"label without recommended mark", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID+" Postgres") }, true, "Recorded: Postgres", "Postgres (Recommended)", ""},
		{"other text", func(q *broker.Question) broker.Inbound {
			return in("c1", "u", "/answer "+q.ID+" other CockroachDB, please")
		}, true, "Recorded: “CockroachDB, please”", "", "CockroachDB, please"},
		{"free text is other", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID+" DuckDB") }, true, "Recorded: “DuckDB”", "", "DuckDB"},
		{"reply to the question message", func(q *broker.Question) broker.Inbound {
			i := in("c1", "u", "2")
			refs, _ := e.st.Messages(ctx, q.ID)
			for _, r := range refs {
				if r.Chat == "c1" {
					i.ReplyTo = r.MessageID
				}
			}
			return i
		}, true, "Recorded: SQLite", "SQLite", ""},
		{"bare number in private chat with one question", func(q *broker.Question) broker.Inbound {
			i := in("c1", "u", "2")
			i.Private = true
			return i
		}, true, "Recorded: SQLite", "SQLite", ""},
		{"out of range", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID+" 7") }, false, "7 is not an option here: choose 1–3", "", ""},
		{"two on single select", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID+" 1,3") }, false, "this question takes one answer: choose one of 1–3", "", ""},
		{"skip on a single question", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID+" skip") }, true, "Recorded: skipped", "", ""},
		{"option and a note", func(q *broker.Question) broker.Inbound {
			return in("c1", "u", "/answer "+q.ID+" 2 other with WAL on")
		}, true, "Recorded: SQLite (note: “with WAL on”)", "SQLite", "with WAL on"},
		{"reply with an option and a note", func(q *broker.Question) broker.Inbound {
			i := in("c1", "u", "3 other 8.0 only")
			refs, _ := e.st.Messages(ctx, q.ID)
			for _, r := range refs {
				if r.Chat == "c1" {
					i.ReplyTo = r.MessageID
				}
			}
			return i
		}, true, "Recorded: MySQL (note: “8.0 only”)", "MySQL", "8.0 only"},
		{"two options and a note on single select", func(q *broker.Question) broker.Inbound {
			return in("c1", "u", "/answer "+q.ID+" 1,2 other both")
		}, false, "this question takes one answer: choose one of 1–3", "", ""},
		{"other chat", func(q *broker.Question) broker.Inbound { return in("c9", "u", "/answer "+q.ID+" 1") }, false, "", "", ""},
		{"other channel", func(q *broker.Question) broker.Inbound {
			i := in("c1", "u", "/answer "+q.ID+" 1")
			i.Channel = "elsewhere"
			return i
		}, false, "", "", ""},
		{"unknown id", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer zzzzzz 1") }, false, "There is no question zzzzzz here.", "", ""},
		{"malformed id", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer 0O1 1") }, false, `"0o1" is not a question id (ids are 6 characters, like k7m2qx)`, "", ""},
		{"missing choice", func(q *broker.Question) broker.Inbound { return in("c1", "u", "/answer "+q.ID) }, false, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := e.ask(t, dbQuestion())
			r := e.b.HandleInbound(ctx, tt.in(q))
			if r.OK != tt.wantOK {
				t.Fatalf("OK = %v, want %v (reply %q)", r.OK, tt.wantOK, r.Text)
			}
			if tt.reply != "" && r.Text != tt.reply {
				t.Fatalf("reply %q, want %q", r.Text, tt.reply)
			}
			got, _ := e.st.Get(ctx, q.ID)
			if !tt.wantOK {
				if got.Status != broker.StatusPending {
					t.Fatalf("refused command changed the question to %s", got.Status)
				}
				e.b.Cancel(ctx, "agent", q.ID, "test done")
				return
			}
			a := got.Answers[q.Prompts[0].Question]
			if a.Skipped != strings.HasSuffix(tt.reply, "skipped") {
				t.Fatalf("skipped = %v after %q", a.Skipped, tt.reply)
			}
			if tt.picked != "" && (len(a.Selected) != 1 || a.Selected[0] != tt.picked) {
				t.Fatalf("selected %v, want %s", a.Selected, tt.picked)
			}
			if a.CustomText != tt.custom {
				t.Fatalf("custom text %q, want %q", a.CustomText, tt.custom)
			}
		})
	}
}

func TestForeignChatCannotLearnOfQuestion(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	foreign := e.b.HandleInbound(context.Background(), in("c9", "u", "/answer "+q.ID+" 1"))
	unknown := e.b.HandleInbound(context.Background(), in("c9", "u", "/answer zzzzzz 1"))
	if foreign.Text != strings.Replace(unknown.Text, "zzzzzz", q.ID, 1) {
		t.Fatalf("a foreign chat reads %q, an unknown id %q: they must read alike", foreign.Text, unknown.Text)
	}
}

func TestResponders(t *testing.T) {
	routes := map[string]broker.Route{broker.DefaultRoute: {
		Targets:    []broker.Target{{Channel: "chat", Chat: "c1"}},
		Responders: []string{"chat:ana", "role:ops", "other:bo"},
	}}
	e := newEnv(t, routes)
	tests := []struct {
		user  string
		roles []string
		ok    bool
	}{
		{"ana", nil, true},
		{"bo", nil, false}, // allowed on another channel only
		{"cy", []string{"ops"}, true},
		{"dee", []string{"dev"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			q := e.ask(t, dbQuestion())
			i := in("c1", tt.user, "/answer "+q.ID+" 1")
			i.Roles = tt.roles
			r := e.b.HandleInbound(context.Background(), i)
			if r.OK != tt.ok {
				t.Fatalf("OK = %v, want %v: %q", r.OK, tt.ok, r.Text)
			}
			if !tt.ok && !errors.Is(r.Err, broker.ErrForbidden) {
				t.Fatalf("refusal err = %v, want ErrForbidden", r.Err)
			}
			if !tt.ok {
				e.b.Cancel(context.Background(), "agent", q.ID, "")
			}
		})
	}
}

func TestDeclineAndDiscuss(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/decline "+q.ID+" not my call"))
	if !r.OK || r.Question.Status != broker.StatusDeclined || r.Question.Reason != "not my call" || r.Question.NotReady {
		t.Fatalf("decline: %+v", r.Question)
	}
	q = e.ask(t, dbQuestion())
	r = e.b.HandleInbound(context.Background(), in("c1", "ana", "/discuss "+q.ID+" what load do we expect?"))
	if !r.OK || r.Question.Status != broker.StatusDeclined || !r.Question.NotReady || r.Question.Reason != "what load do we expect?" {
		t.Fatalf("discuss: %+v", r.Question)
	}
	res := r.Question.Result()
	if !res.NotReady {
		t.Fatal("result must carry not_ready")
	}
}

func TestMultiSelectAndDialog(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	req := &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which caches?", Header: "Cache", MultiSelect: true, Options: []broker.Option{{Label: "Redis"}, {Label: "Memcached"}, {Label: "None at all"}}},
		{Question: "Which region?", Options: []broker.Option{{Label: "EU"}, {Label: "US", Action: broker.ActionEndTurn, Prefill: "go"}}},
		{Question: "Anything else?"},
	}}
	q := e.ask(t, req)
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+".1 3,1")); !r.OK {
		t.Fatalf("first prompt: %q", r.Text)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "bo", "/answer "+q.ID+".1 2")); r.OK || !errors.Is(r.Err, broker.ErrConflict) {
		t.Fatalf("second answer to the same prompt must be refused: %+v", r)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+".4 2")); r.OK || r.Text != q.ID+" has 3 questions: use "+q.ID+".1–"+q.ID+".3" {
		t.Fatalf("prompt out of range: %q", r.Text)
	}
	// Without a prompt number the first unanswered prompt is meant.
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" US")); !r.OK {
		t.Fatalf("second prompt: %q", r.Text)
	}
	got, _ := e.st.Get(ctx, q.ID)
	if got.Status != broker.StatusPending {
		t.Fatalf("dialog resolved before every prompt was answered")
	}
	r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+".3 skip"))
	if !r.OK || r.Question.Status != broker.StatusAnswered {
		t.Fatalf("last prompt: %+v", r)
	}
	a := r.Question.Answers
	if strings.Join(a["Which caches?"].Selected, ",") != "Redis,None at all" {
		t.Fatalf("caches: %v", a["Which caches?"].Selected)
	}
	if us := a["Which region?"]; us.Selected[0] != "US" || us.Action != broker.ActionEndTurn || us.Prefill != "go" {
		t.Fatalf("region: %+v", us)
	}
	if !a["Anything else?"].Skipped {
		t.Fatal("third prompt must be skipped")
	}
}

// TestIdempotentAskOfAnUnversionedFingerprint checks that a question
// stored by the release before, whose fingerprint has no version, is
// found again by an ask with the same body and refused (409) to one with
// another body.
func TestIdempotentAskOfAnUnversionedFingerprint(t *testing.T) {
	// The fingerprint the release before stored for this request.
	const unversioned = "80e44cdf12a36228f2eb08cb0eae0ec1"
	ctx := context.Background()
	req := dbQuestion()
	req.ToolCallID = "call-1"
	q, created, err := newEnv(t, nil).b.Ask(ctx, "agent", req)
	if err != nil || !created {
		t.Fatal(err)
	}
	if !strings.HasPrefix(q.Fingerprint, "v2:") {
		t.Fatalf("a new question's fingerprint is %q, want v2:…", q.Fingerprint)
	}
	e := newEnv(t, nil)
	old := q.Clone()
	old.Fingerprint = unversioned
	if _, created, err := e.st.Create(ctx, old, nil); err != nil || !created {
		t.Fatalf("storing the older question: created=%v %v", created, err)
	}
	same := dbQuestion()
	same.ToolCallID = "call-1"
	again, created, err := e.b.Ask(ctx, "agent", same)
	if err != nil || created || again.ID != old.ID {
		t.Fatalf("the same body again: created=%v %v %v, want question %s back", created, again, err, old.ID)
	}
	changed := dbQuestion()
	changed.ToolCallID = "call-1"
	changed.Question = "Which queue?"
	if _, _, err := e.b.Ask(ctx, "agent", changed); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("same key, other body: %v, want a conflict", err)
	}
}

func TestIdempotentAsk(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	req := dbQuestion()
	req.ToolCallID = "call-1"
	q1, created, err := e.b.Ask(ctx, "agent", req)
	if err != nil || !created {
		t.Fatal(err)
	}
	q2, created, err := e.b.Ask(ctx, "agent", req)
	if err != nil || created || q2.ID != q1.ID {
		t.Fatalf("re-ask: created=%v id=%s err=%v", created, q2.ID, err)
	}
	if len(e.ch.Posts()) != 2 {
		t.Fatalf("re-ask posted again: %d posts", len(e.ch.Posts()))
	}
	changed := dbQuestion()
	changed.ToolCallID = "call-1"
	changed.Question = "Which queue?"
	if _, _, err := e.b.Ask(ctx, "agent", changed); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("same key, other body: %v", err)
	}
	other, created, err := e.b.Ask(ctx, "agent2", req)
	if err != nil || !created || other.ID == q1.ID {
		t.Fatal("another agent's same key must be another question")
	}
	// A cancelled question is never revived by asking again.
	e.b.Cancel(ctx, "agent", q1.ID, "")
	again, _, _ := e.b.Ask(ctx, "agent", req)
	if again.ID != q1.ID || again.Status != broker.StatusCancelled {
		t.Fatalf("re-ask after cancel: %s %s", again.ID, again.Status)
	}
}

func TestUnsupportedAtOnce(t *testing.T) {
	routes := map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "gone"}, {Channel: "nowhere"}}},
		"empty":             {},
	}
	e := newEnv(t, routes)
	e.ch.Fail = map[string]error{"gone": brokertest.ErrChatNotFound}
	ctx := context.Background()
	for _, tc := range []struct{ route, reason string }{
		{"", `chat:gone: chat not found; nowhere: channel "nowhere" is not configured`},
		{"empty", `route "empty" has no targets: nobody is asked`},
		{"missing", `no route named "missing" is configured`},
	} {
		req := dbQuestion()
		req.Route = tc.route
		q, _, err := e.b.Ask(ctx, "agent", req)
		if err != nil {
			t.Fatal(err)
		}
		if q.Status != broker.StatusUnsupported || !strings.Contains(q.Reason, tc.reason) {
			t.Fatalf("route %q: %s %q, want unsupported with %q", tc.route, q.Status, q.Reason, tc.reason)
		}
	}
}

func TestCancelSession(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a, b := e.ask(t, dbQuestion()), e.ask(t, dbQuestion())
	other := dbQuestion()
	other.SessionID = "s2"
	c := e.ask(t, other)
	got, err := e.b.CancelSession(ctx, "agent", "s1", "")
	if err != nil || len(got) != 2 {
		t.Fatalf("cancelled %d, err %v", len(got), err)
	}
	for _, id := range []string{a.ID, b.ID} {
		q, _ := e.st.Get(ctx, id)
		if q.Status != broker.StatusCancelled || q.Reason != "the agent's session was cancelled" {
			t.Fatalf("%s: %s %q", id, q.Status, q.Reason)
		}
	}
	if q, _ := e.st.Get(ctx, c.ID); q.Status != broker.StatusPending {
		t.Fatal("another session's question was cancelled")
	}
	if _, err := e.b.Cancel(ctx, "intruder", c.ID, ""); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("another agent cancels: %v", err)
	}
}

func TestPendingListsOpenQuestionsOfTheChat(t *testing.T) {
	e := newEnv(t, nil)
	q1, q2 := e.ask(t, dbQuestion()), e.ask(t, dbQuestion())
	r := e.b.HandleInbound(context.Background(), in("c1", "u", "/pending"))
	if !r.OK || !strings.Contains(r.Text, q1.ID) || !strings.Contains(r.Text, q2.ID) {
		t.Fatalf("pending: %q", r.Text)
	}
	private := in("c1", "u", "2")
	private.Private = true
	r = e.b.HandleInbound(context.Background(), private)
	if r.OK || !strings.Contains(r.Text, "Several questions are open here") || !strings.Contains(r.Text, q1.ID) {
		t.Fatalf("bare answer with two open: %q", r.Text)
	}
	chatter := e.b.HandleInbound(context.Background(), in("c1", "u", "lunch?"))
	if !chatter.Ignored {
		t.Fatal("group chatter must be ignored")
	}
}

func TestWaitRenewsLease(t *testing.T) {
	e := newEnv(t, nil)
	req := dbQuestion()
	lease := broker.Duration(6 * time.Second)
	req.Lease = &lease
	q := e.ask(t, req)
	if !q.LeaseUntil.Equal(q.CreatedAt.Add(6 * time.Second)) {
		t.Fatalf("lease until %v", q.LeaseUntil)
	}
	e.clock.Add(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.b.Wait(ctx, "agent", q.ID); err != nil {
		t.Fatal(err)
	}
	lapsed, _ := e.st.LapsedLeases(context.Background(), e.clock.Now(), 10)
	if len(lapsed) != 0 {
		t.Fatalf("a waited-on question's lease lapsed: %v", lapsed)
	}
}

func TestResolvedCopyEditIsRetriedUntilThePlatformAnswers(t *testing.T) {
	e := newEnv(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}})
	q := e.ask(t, dbQuestion())
	e.ch.UpdateFailures = 1
	if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 2")); !r.OK {
		t.Fatal(r.Text)
	}
	if !e.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 1 }) {
		t.Fatalf("the copy was never edited after the platform came back (%d attempts)", e.ch.UpdateAttempts())
	}
	if got := e.ch.Updates()[0]; got.Status != broker.StatusAnswered {
		t.Fatalf("copy edited to %s", got.Status)
	}
	if n := e.ch.UpdateAttempts(); n != 2 {
		t.Fatalf("%d attempts, want 2 (one failure, one success)", n)
	}
}

func TestPermanentEditFailureIsNotRetried(t *testing.T) {
	e := newEnv(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}})
	q := e.ask(t, dbQuestion())
	e.ch.UpdateErr = broker.Permanent(errors.New("message to edit not found"))
	e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 2"))
	e.b.Close() // waits for the edit under way; a retry would still be sleeping
	if n := e.ch.UpdateAttempts(); n != 1 {
		t.Fatalf("%d attempts at a permanently failing edit, want 1", n)
	}
}
