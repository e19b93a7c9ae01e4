package broker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

func intp(v int) *int           { return &v }
func floatp(v float64) *float64 { return &v }
func valueOf(s string) broker.Value {
	var v broker.Value
	if err := v.UnmarshalJSON([]byte(s)); err != nil {
		panic(err)
	}
	return v
}

// storedResult is the agent's view of question id, as the API writes it.
func storedResult(t *testing.T, e *env, id string) string {
	t.Helper()
	q, err := e.st.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(q.Result())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTypedAnswerWrongThenRight answers a typed dialog in chat: a wrong
// value is refused with the rule in words and records nothing; the right
// ones are recorded, and the result carries them typed.
func TestTypedAnswerWrongThenRight(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which port should the service listen on?", Header: "Port",
			Field: &broker.Field{Name: "port", Type: broker.FieldInteger, Title: "Port", Minimum: floatp(1024), Maximum: floatp(65535)}},
		{Question: "Which regions?", Field: &broker.Field{Name: "regions", Type: broker.FieldMultiEnum, Title: "Regions",
			Choices: []broker.FieldChoice{{Value: "eu", Title: "Europe"}, {Value: "us", Title: "Americas"}, {Value: "ap", Title: "Asia"}}, MaxItems: intp(2)}},
		{Question: "Deploy on Friday?", Field: &broker.Field{Name: "friday", Type: broker.FieldBoolean}},
	}})
	ctx := context.Background()
	for _, tc := range []struct {
		text, reply string
		ok          bool
		progress    int // prompts answered after it
	}{
		{"/answer " + q.ID + ".1 80", "Port must be a whole number from 1024 to 65535; nothing was recorded.", false, 0},
		{"/answer " + q.ID + ".1 8080", "Recorded: “8080” (1 of 3)", true, 1},
		{"/answer " + q.ID + ".2 1,2,3", "Regions must be at most 2 of the choices; nothing was recorded.", false, 1},
		{"/answer " + q.ID + ".2 eu,ap", "Recorded: Europe, Asia (2 of 3)", true, 2},
		{"/answer " + q.ID + ".3 maybe", `"maybe" is not an option here: choose 1–2`, false, 2},
	} {
		r := e.b.HandleInbound(ctx, in("c1", "ana", tc.text))
		if r.OK != tc.ok || !strings.HasPrefix(r.Text, tc.reply) {
			t.Fatalf("%s: reply %+v, want ok=%v %q", tc.text, r, tc.ok, tc.reply)
		}
		stored, err := e.st.Get(ctx, q.ID)
		if err != nil || stored.Status != broker.StatusPending || stored.ProgressCount() != tc.progress {
			t.Fatalf("after %s: %d prompts answered, status %s (%v); want %d", tc.text, stored.ProgressCount(), stored.Status, err, tc.progress)
		}
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+".3 no")); !r.OK {
		t.Fatalf("the last answer was refused: %+v", r)
	}
	res := storedResult(t, e, q.ID)
	for _, want := range []string{`"value":8080`, `"value":["eu","ap"]`, `"value":false`, `"status":"answered"`} {
		if !strings.Contains(res, want) {
			t.Errorf("result %s lacks %s", res, want)
		}
	}
}

// TestTypedAnswerRefusedChangesNothing checks that a refused typed answer
// to a single question leaves it pending with no progress, on the fast
// path of a question this instance knows too.
func TestTypedAnswerRefusedChangesNothing(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, &broker.AskRequest{Question: "When do we start?", Field: &broker.Field{Type: broker.FieldString, Title: "Start date", Format: broker.FormatDate}})
	ctx := context.Background()
	r := e.b.HandleInbound(ctx, in("c2", "ana", "/answer "+q.ID+" next monday"))
	if r.OK || r.Text != "Start date must be a date such as 2026-12-03; nothing was recorded." {
		t.Fatalf("reply %+v", r)
	}
	stored, _ := e.st.Get(ctx, q.ID)
	if stored.Status != broker.StatusPending || len(stored.Answers) != 0 {
		t.Fatalf("a refused answer changed the question: %+v", stored)
	}
	// Files are no date either.
	r = e.b.HandleInbound(ctx, broker.Inbound{Channel: "chat", Chat: "c2", User: "ana", Text: "/answer " + q.ID + " 2026-12-03",
		Attachments: []broker.Attachment{{Name: "a.txt", Data: []byte("hello")}}})
	if r.OK || !strings.Contains(r.Text, "Files are not accepted here: this question takes a date such as 2026-12-03") {
		t.Fatalf("files on a date: %+v", r)
	}
	if r := e.b.HandleInbound(ctx, in("c2", "ana", "/answer "+q.ID+" 2026-12-03")); !r.OK {
		t.Fatalf("a date was refused: %+v", r)
	}
	if res := storedResult(t, e, q.ID); !strings.Contains(res, `"custom_text":"2026-12-03","skipped":false,"value":"2026-12-03"`) {
		t.Errorf("result %s lacks the typed date", res)
	}
}

// TestTypedDefaultAtTimeout checks that a typed default applies typed
// when nobody answers in time, and that the card's deadline line names it
// as people read it.
func TestTypedDefaultAtTimeout(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which port?", Field: &broker.Field{Type: broker.FieldInteger, Default: valueOf("8080")}},
		{Question: "Which level?", Field: &broker.Field{Type: broker.FieldEnum, Default: valueOf(`"hi"`),
			Choices: []broker.FieldChoice{{Value: "lo", Title: "Low"}, {Value: "hi", Title: "High"}}}},
	}})
	if got := broker.DeadlineText(q, time.UTC); !strings.HasSuffix(got, "default: 8080; High") {
		t.Errorf("deadline line %q does not name the defaults", got)
	}
	e.clock.Add(time.Hour)
	if _, err := e.b.Expire(context.Background(), q, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	res := storedResult(t, e, q.ID)
	for _, want := range []string{`"custom_text":"8080","skipped":false,"value":8080,"defaulted":true`, `"selected":["High"],"custom_text":"","skipped":false,"value":"hi","defaulted":true`, `"fallback":"default"`} {
		if !strings.Contains(res, want) {
			t.Errorf("result %s lacks %s", res, want)
		}
	}
}
