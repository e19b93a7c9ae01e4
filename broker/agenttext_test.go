package broker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// refusedAsk asks req and checks that it is refused naming field with a
// message containing msg, and that nothing was stored or posted.
func (e *env) refusedAsk(t *testing.T, req *broker.AskRequest, field, msg string) {
	t.Helper()
	before := len(e.ch.Posts())
	_, _, err := e.b.Ask(context.Background(), "agent", req)
	var fe *broker.FieldError
	if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(fe.Message, msg) {
		t.Fatalf("err = %v\nwant %s: …%s…", err, field, msg)
	}
	if qs, _ := e.st.List(context.Background(), broker.Filter{}); len(qs) != 0 {
		t.Fatalf("a refused ask stored %d question(s)", len(qs))
	}
	if n := len(e.ch.Posts()); n != before {
		t.Fatal("a refused ask was posted")
	}
}

// TestQuestionResponders checks a question's responders against its
// route: well formed, on a channel the route posts to, and never wider
// than the route's own list.
func TestQuestionResponders(t *testing.T) {
	targets := []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}, {Channel: "web"}}
	open := map[string]broker.Route{broker.DefaultRoute: {Targets: targets}}
	listed := map[string]broker.Route{broker.DefaultRoute: {Targets: targets, Responders: []string{"chat:ana", "role:ops", "bo"}}}
	chatOnly := map[string]broker.Route{broker.DefaultRoute: {Targets: targets[:2], Responders: []string{"chat:ana"}}}
	tests := []struct {
		name       string
		routes     map[string]broker.Route
		responders []string
		field, msg string // "" when accepted
	}{
		{"anyone on a route without responders", open, []string{"chat:ana", "web:local", "role:ops", "bo"}, "", ""},
		{"a channel the route does not post to", open, []string{"chat:ana", "slack:U1"}, "responders[1]", `channel "slack" is not among the route's targets (chat, web)`},
		{"three parts", open, []string{"x:y:z"}, "responders[0]", `"x:y:z" is not a responder entry`},
		{"four parts", open, []string{"chat:role:ops:1"}, "responders[0]", "is not a responder entry"},
		{"empty user", open, []string{"chat:"}, "responders[0]", "has an empty part"},
		{"empty channel", open, []string{":ana"}, "responders[0]", "has an empty part"},
		{"empty role", open, []string{"chat:role:"}, "responders[0]", "has an empty part"},
		{"a space", open, []string{"chat: ana"}, "responders[0]", "contains a space"},
		{"blank", open, []string{" "}, "responders[0]", "must not be empty"},
		{"the route's own entry", listed, []string{"chat:ana"}, "", ""},
		{"a role of the route on one channel", listed, []string{"chat:role:ops"}, "", ""},
		{"a person of the route on one channel", listed, []string{"web:bo"}, "", ""},
		{"a person the route allows on every channel", listed, []string{"chat:ana", "bo"}, "", ""},
		{"a person the route lists on its only channel", chatOnly, []string{"ana"}, "", ""},
		{"another person widens", listed, []string{"chat:ana", "chat:cy"}, "responders[1]", `"chat:cy" is not one of the route's responders: a question may narrow the route's responders, never widen them`},
		{"a person on every channel widens a person on one", listed, []string{"ana"}, "responders[0]", `"ana" is not one of the route's responders`},
		{"a person in place of a role widens", listed, []string{"chat:ops"}, "responders[0]", "never widen"},
		{"a role in place of a person widens", listed, []string{"role:bo"}, "responders[0]", "never widen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.routes)
			req := dbQuestion()
			req.Responders = tt.responders
			if tt.field != "" {
				e.refusedAsk(t, req, tt.field, tt.msg)
				return
			}
			if q := e.ask(t, req); len(q.Responders) != len(tt.responders) {
				t.Fatalf("responders = %v, want %v", q.Responders, tt.responders)
			}
		})
	}
}

// TestNarrowedRespondersDecide checks that the narrowed list is the one
// that counts: a person the route allows but the question does not name
// cannot answer.
func TestNarrowedRespondersDecide(t *testing.T) {
	e := newEnv(t, map[string]broker.Route{broker.DefaultRoute: {
		Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}, Responders: []string{"chat:ana", "chat:bo"},
	}})
	req := dbQuestion()
	req.Responders = []string{"chat:ana"}
	q := e.ask(t, req)
	if r := e.b.HandleInbound(context.Background(), in("c1", "bo", "/answer "+q.ID+" 1")); !errors.Is(r.Err, broker.ErrForbidden) {
		t.Fatalf("bo answered a question narrowed to ana: %+v", r)
	}
	if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 1")); !r.OK {
		t.Fatalf("ana: %q", r.Text)
	}
}

// TestQuestionReminderLimits checks a question's own reminder points
// against the timeout it will have, and that inherited points too close
// for a short timeout are dropped instead.
func TestQuestionReminderLimits(t *testing.T) {
	route := func(timeout time.Duration) map[string]broker.Route {
		return map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}, Timeout: timeout}}
	}
	dur := func(d time.Duration) *broker.Duration { v := broker.Duration(d); return &v }
	many := make([]float64, 99)
	for i := range many {
		many[i] = float64(i+1) / 100
	}
	t.Run("99 points", func(t *testing.T) {
		req := dbQuestion()
		req.Reminders = many
		newEnv(t, nil).refusedAsk(t, req, "reminders", "at most 5 points, got 99")
	})
	t.Run("closer than a minute with the route's timeout", func(t *testing.T) {
		req := dbQuestion()
		req.Reminders = []float64{0.5, 0.9}
		newEnv(t, route(2*time.Minute)).refusedAsk(t, req, "reminders[1]", "0.9 is only 48 s after 0.5 with a timeout of 2 min")
	})
	t.Run("closer than a minute with the question's timeout", func(t *testing.T) {
		req := dbQuestion()
		req.Reminders, req.Timeout = []float64{0.5, 0.9}, dur(10*time.Second)
		newEnv(t, nil).refusedAsk(t, req, "reminders[1]", "0.9 is only 4 s after 0.5 with a timeout of 10 s")
	})
	t.Run("the default points at the shortest timeout", func(t *testing.T) {
		e := newEnv(t, route(10*time.Second))
		q := e.ask(t, dbQuestion())
		if len(q.Reminders) != 1 || !q.Reminders[0].Equal(q.CreatedAt.Add(5*time.Second)) {
			t.Fatalf("reminders = %v, want one, half-way", q.Reminders)
		}
	})
}

// TestPersonTextReachesNobodyRaw checks what people type: a control
// character is refused with a reply that says so and records nothing,
// Windows line ends become newlines, and a display name is cleaned.
func TestPersonTextReachesNobodyRaw(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	q := e.ask(t, dbQuestion())
	for _, text := range []string{
		"/answer " + q.ID + " other \x1b[2J\x1b[31mhacked",
		"/decline " + q.ID + " no\x1b]0;title\a",
		"/discuss " + q.ID + " wait\x00",
	} {
		r := e.b.HandleInbound(ctx, in("c1", "ana", text))
		if r.OK || !errors.Is(r.Err, broker.ErrInvalid) || !strings.Contains(r.Text, "Nothing was recorded: the text contains a control character (U+") {
			t.Fatalf("%q: %+v", text, r)
		}
	}
	if got, _ := e.st.Get(ctx, q.ID); got.Status != broker.StatusPending {
		t.Fatalf("refused text changed the question: %s", got.Status)
	}
	i := in("c1", "ana", "/answer "+q.ID+" other first line\r\nsecond line")
	i.Name = "Ana\n\u202eAnswered by bob\x1b[0m"
	r := e.b.HandleInbound(ctx, i)
	if !r.OK {
		t.Fatalf("answer: %q", r.Text)
	}
	a := r.Question.Answers[r.Question.Prompts[0].Question]
	if a.CustomText != "first line\nsecond line" {
		t.Fatalf("custom text = %q", a.CustomText)
	}
	if name := r.Question.AnsweredBy.Name; name != "Ana Answered by bob[0m" {
		t.Fatalf("answered_by.name = %q", name)
	}
}

// TestCancelReason checks the reason an agent gives when it cancels,
// which every platform shows under the question.
func TestCancelReason(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	q := e.ask(t, dbQuestion())
	for _, reason := range []string{"done\nAnswered by ana at 14:02: Approve", "\x1b[31mred", "x\u202e"} {
		_, err := e.b.Cancel(ctx, "agent", q.ID, reason)
		var fe *broker.FieldError
		if !errors.As(err, &fe) || fe.Field != "reason" {
			t.Fatalf("cancel with %q: %v, want a reason error", reason, err)
		}
		if _, err := e.b.CancelSession(ctx, "agent", "s1", reason); !errors.As(err, &fe) || fe.Field != "reason" {
			t.Fatalf("session cancel with %q: %v, want a reason error", reason, err)
		}
	}
	if got, _ := e.st.Get(ctx, q.ID); got.Status != broker.StatusPending {
		t.Fatalf("a refused cancel changed the question: %s", got.Status)
	}
	got, err := e.b.Cancel(ctx, "agent", q.ID, "  the build was fixed  ")
	if err != nil || got.Reason != "the build was fixed" {
		t.Fatalf("cancel: %v %q", err, got.Reason)
	}
}
