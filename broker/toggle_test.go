package broker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestToggleKeepsSelectionAndRedrawsEveryCopy: "/toggle" ticks and unticks
// options in the selection kept in the store, the reply carries the
// question as it stands, and every posted copy (c1 and c2) is redrawn
// with the selection, not only the one in the chat that toggled.
func TestToggleKeepsSelectionAndRedrawsEveryCopy(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, &broker.AskRequest{Question: "Which caches?", MultiSelect: true, Options: []broker.Option{{Label: "Redis"}, {Label: "Memcached"}, {Label: "Varnish"}}})
	ctx := context.Background()
	var r broker.Reply
	for _, opt := range []int{2, 0, 2, 1} {
		r = e.b.HandleInbound(ctx, in("c1", "ana", broker.FormatToggle(q.Ref(0), opt)))
		if !r.OK {
			t.Fatalf("toggle %d: %q", opt+1, r.Text)
		}
	}
	if r.Text != "Selected: Redis, Memcached." || fmt.Sprint(r.Question.Selections[0]) != "[0 1]" {
		t.Fatalf("last toggle replied %q with selections %v", r.Text, r.Question.Selections)
	}
	got, _ := e.st.Get(ctx, q.ID)
	if fmt.Sprint(got.Selections[0]) != "[0 1]" || got.Status != broker.StatusPending {
		t.Fatalf("stored: %s with selection %v, want pending with [0 1]", got.Status, got.Selections[0])
	}
	// Both copies end showing the last selection.
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return copiesShow(c, "[0 1]") >= 2 }) {
		t.Fatalf("copies redrawn with the selection: %d of 2", copiesShow(e.ch, "[0 1]"))
	}
	if r := e.b.HandleInbound(ctx, in("c2", "bo", "toggle "+q.ID+" 1")); !r.OK || r.Text != "Selected: Memcached." {
		t.Fatalf("untick from the other chat: %+v", r)
	}
	if r := e.b.HandleInbound(ctx, in("c2", "bo", "/toggle "+q.ID+" 2")); !r.OK || r.Text != "Nothing selected." {
		t.Fatalf("untick the last: %+v", r)
	}
}

// copiesShow counts the edits that showed selection sel of prompt 0.
func copiesShow(c *brokertest.Channel, sel string) int {
	n := 0
	for _, u := range c.Updates() {
		if fmt.Sprint(u.Selections[0]) == sel {
			n++
		}
	}
	return n
}

// TestToggleRefusals: every bad toggle says what is wrong and changes
// nothing: the selection in the store stays as it was.
func TestToggleRefusals(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	multi := []broker.Option{{Label: "Redis"}, {Label: "Memcached"}, {Label: "Varnish"}}
	single := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}})
	dialog := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which region?", Options: []broker.Option{{Label: "EU"}, {Label: "US"}}},
		{Question: "Which caches?", MultiSelect: true, Options: multi},
	}})
	if r := e.b.HandleInbound(ctx, in("c1", "ana", broker.FormatToggle(dialog.Ref(1), 0))); !r.OK {
		t.Fatalf("first toggle: %q", r.Text)
	}
	closed := e.ask(t, &broker.AskRequest{Question: "Which caches?", MultiSelect: true, Options: multi})
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+closed.ID+" 1,2")); !r.OK {
		t.Fatalf("answer: %q", r.Text)
	}
	answered := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which caches?", MultiSelect: true, Options: multi},
		{Question: "Which region?", Options: []broker.Option{{Label: "EU"}, {Label: "US"}}},
	}})
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+answered.ID+".1 1")); !r.OK {
		t.Fatalf("answer: %q", r.Text)
	}
	for _, tt := range []struct {
		name, text string
		kind       error
		want       string
	}{
		{"option out of range", "/toggle " + dialog.ID + ".2 4", broker.ErrInvalid, "4 is not an option of question 2 of " + dialog.ID + ": choose 1–3; nothing was changed."},
		{"option zero", "/toggle " + dialog.ID + ".2 0", broker.ErrInvalid, "takes the number of one option, 1–4"},
		{"not an option number", "/toggle " + dialog.ID + ".2 Redis", broker.ErrInvalid, "takes the number of one option"},
		{"two options", "/toggle " + dialog.ID + ".2 1 2", broker.ErrInvalid, "takes the number of one option"},
		{"no option", "/toggle " + dialog.ID + ".2", broker.ErrInvalid, "needs the number of one option"},
		{"not multi-select", "/toggle " + dialog.ID + ".1 1", broker.ErrInvalid, "Question 1 of " + dialog.ID + " takes one answer, so there is nothing to toggle"},
		{"single question, not multi-select", "/toggle " + single.ID + " 1", broker.ErrInvalid, "Question " + single.ID + " takes one answer"},
		{"prompt beyond the dialog", "/toggle " + dialog.ID + ".3 1", broker.ErrInvalid, dialog.ID + " has 2 questions: use " + dialog.ID + ".1–" + dialog.ID + ".2"},
		{"prompt number on a single question", "/toggle " + single.ID + ".2 1", broker.ErrInvalid, single.ID + " has one question"},
		{"prompt already answered", "/toggle " + answered.ID + ".1 2", broker.ErrConflict, "Question 1 of " + answered.ID + " already has an answer"},
		{"resolved question", "/toggle " + closed.ID + " 3", broker.ErrClosed, "Already answered by ana"},
		{"unknown question", "/toggle zzzzzz 1", broker.ErrNotFound, "There is no question zzzzzz here."},
		{"bad id", "/toggle nope 1", broker.ErrInvalid, `"nope" is not a question id`},
		{"another chat", "/toggle " + dialog.ID + ".2 2", broker.ErrNotFound, "There is no question"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chat := "c1"
			if tt.name == "another chat" {
				chat = "c9"
			}
			before := selections(t, e, dialog.ID, closed.ID, answered.ID)
			r := e.b.HandleInbound(ctx, in(chat, "ana", tt.text))
			if r.OK || !errors.Is(r.Err, tt.kind) || !strings.Contains(r.Text, tt.want) {
				t.Fatalf("%q → ok=%v err=%v %q; want %v containing %q", tt.text, r.OK, r.Err, r.Text, tt.kind, tt.want)
			}
			if after := selections(t, e, dialog.ID, closed.ID, answered.ID); after != before {
				t.Fatalf("%q changed the selections: %s → %s", tt.text, before, after)
			}
		})
	}
}

func selections(t *testing.T, e *env, ids ...string) string {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		q, err := e.st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%s:%v ", id, q.Status, q.Selections)
	}
	return b.String()
}

// TestPendingOne: "/pending <id>" shows one question as it stands, with
// the question in the reply; a question of another chat reads as
// unknown, and a closed one says how it ended.
func TestPendingOne(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which region?", Options: []broker.Option{{Label: "EU"}, {Label: "US"}}},
		{Question: "Which cache?", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+".1 1"))
	r := e.b.HandleInbound(ctx, in("c2", "bo", broker.FormatPending(q.ID)))
	if !r.OK || r.Question == nil || r.Question.ID != q.ID || !strings.HasPrefix(r.Text, q.ID+": Which region?") || !strings.Contains(r.Text, "Now question 2 of 2: Which cache?") {
		t.Fatalf("/pending %s: %+v", q.ID, r)
	}
	if r := e.b.HandleInbound(ctx, in("c9", "bo", broker.FormatPending(q.ID))); r.OK || !errors.Is(r.Err, broker.ErrNotFound) || r.Question != nil {
		t.Fatalf("from another chat: %+v", r)
	}
	e.b.HandleInbound(ctx, in("c1", "ana", "/decline "+q.ID+" not now"))
	if r := e.b.HandleInbound(ctx, in("c1", "bo", broker.FormatPending(q.ID))); r.OK || !errors.Is(r.Err, broker.ErrClosed) || !strings.HasPrefix(r.Text, "Already declined by ana") {
		t.Fatalf("closed: %+v", r)
	}
}

// TestCopiesEndShowingTheStoresSelection: a toggle's version of the
// question that reaches the copy edits after a later toggle's (two taps
// handled side by side) must not leave the copies showing the older
// selection.
func TestCopiesEndShowingTheStoresSelection(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, &broker.AskRequest{Question: "Which caches?", MultiSelect: true, Options: []broker.Option{{Label: "Redis"}, {Label: "Memcached"}}})
	ctx := context.Background()
	first := e.b.HandleInbound(ctx, in("c1", "ana", broker.FormatToggle(q.Ref(0), 0)))
	if !first.OK || !e.b.HandleInbound(ctx, in("c2", "bo", broker.FormatToggle(q.Ref(0), 1))).OK {
		t.Fatal("toggles refused")
	}
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return copiesShow(c, "[0 1]") >= 2 }) {
		t.Fatalf("copies redrawn with both options: %d of 2", copiesShow(e.ch, "[0 1]"))
	}
	n := len(e.ch.Updates())
	e.b.UpdateCopies(first.Question) // the first toggle's version, late
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) >= n+2 }) {
		t.Fatalf("the late version was not shown at all")
	}
	for _, u := range e.ch.Updates()[n:] {
		if fmt.Sprint(u.Selections[0]) != "[0 1]" {
			t.Fatalf("a copy was redrawn with the older selection %v", u.Selections[0])
		}
	}
}
