package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

func floatp(v float64) *float64 { return &v }

// TestTypedFieldsInbox answers typed prompts in the inbox in Chromium:
// each shows its native input with the field's limits and what it
// takes; a wrong value is refused with the bridge's reply beside the
// input, and nothing is recorded; the right values reach the agent
// typed.
func TestTypedFieldsInbox(t *testing.T) {
	browser := newBrowser(t)
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which port should the service listen on?", Field: &broker.Field{Name: "port", Type: broker.FieldInteger, Title: "Port", Minimum: floatp(1024), Maximum: floatp(65535)}},
		{Question: "Who gets the report?", Field: &broker.Field{Type: broker.FieldString, Title: "Email", Format: broker.FormatEmail}},
		{Question: "When do we start?", Field: &broker.Field{Type: broker.FieldString, Title: "Start", Format: broker.FormatDateTime}},
		{Question: "Deploy on Fridays?", Field: &broker.Field{Type: broker.FieldBoolean}},
	}})
	got := e.wait(t, q.ID)
	page := tab(t, browser, false)
	open(t, page, e.url)
	box := func(i int) string { return fmt.Sprintf("#q-%s-%d-other", q.ID, i) }
	reply := func(i int) string { return fmt.Sprintf("#q-%s-%d-reply", q.ID, i) }
	attr := func(css, js string) string {
		return eval[string](t, page, fmt.Sprintf(`String(document.querySelector(%q).%s)`, css, js))
	}
	submit := func(i int) { click(t, page, fmt.Sprintf("%s fieldset:nth-of-type(%d) button.submit", card(q.ID), i+1)) }

	// Every typed prompt shows its native input and what it takes.
	waitText(t, page, card(q.ID)+" fieldset:nth-of-type(1) .expect", "Reply with a whole number from 1024 to 65535")
	for _, c := range []struct{ css, js, want string }{
		{box(0), "type", "number"}, {box(0), "min", "1024"}, {box(0), "max", "65535"}, {box(0), "step", "1"},
		{box(0), "getAttribute('aria-describedby')", fmt.Sprintf("q-%s-0-expect q-%s-0-reply", q.ID, q.ID)},
		{box(1), "type", "email"}, {box(2), "type", "datetime-local"},
		{reply(0), "getAttribute('aria-live')", "polite"},
	} {
		if got := attr(c.css, c.js); got != c.want {
			t.Errorf("%s.%s = %q, want %q", c.css, c.js, got, c.want)
		}
	}
	if n := eval[int](t, page, fmt.Sprintf(`document.querySelectorAll(%q).length`, card(q.ID)+" fieldset:nth-of-type(4) input[type=radio]")); n != 2 {
		t.Errorf("the boolean prompt has %d radio buttons, want Yes and No", n)
	}
	if n := eval[int](t, page, fmt.Sprintf(`document.querySelectorAll(%q).length`, card(q.ID)+" fieldset:nth-of-type(1) input[type=file]")); n != 0 {
		t.Errorf("a number takes %d file pickers, want none", n)
	}

	// A port out of range: the bridge's reply stands beside the input,
	// which is marked invalid, and nothing is recorded.
	typeInto(t, page, box(0), "80")
	submit(0)
	waitText(t, page, reply(0), "Port must be a whole number from 1024 to 65535; nothing was recorded.")
	if v := attr(box(0), "getAttribute('aria-invalid')"); v != "true" {
		t.Errorf("the refused input has aria-invalid=%s, want true", v)
	}
	if n := e.get(t, q.ID).ProgressCount(); n != 0 {
		t.Fatalf("a refused port recorded %d answers", n)
	}
	typeInto(t, page, box(0), "8080")
	submit(0)
	waitText(t, page, card(q.ID)+" fieldset:nth-of-type(1) .given", "Answered: “8080”")

	// An email that is none, then one.
	typeInto(t, page, box(1), "ana at example")
	submit(1)
	waitText(t, page, reply(1), "Email must be an email address such as ana@example.com")
	typeInto(t, page, box(1), "ana@example.com")
	submit(1)
	waitText(t, page, card(q.ID)+" fieldset:nth-of-type(2) .given", "Answered: “ana@example.com”")

	// A date and time, in the browser's time zone, goes as RFC 3339.
	eval[string](t, page, fmt.Sprintf(`document.querySelector(%q).value = '2026-12-03T14:30'`, box(2)))
	iso := eval[string](t, page, `new Date('2026-12-03T14:30').toISOString()`)
	at, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		t.Fatal(err)
	}
	submit(2)
	waitText(t, page, card(q.ID)+" fieldset:nth-of-type(3) .given", "Answered:")

	pick(t, page, q.ID, 3, 0)
	res := result(t, got)
	for question, want := range map[string]string{
		"Which port should the service listen on?": "8080",
		"Who gets the report?":                     `"ana@example.com"`,
		"When do we start?":                        `"` + at.Format(time.RFC3339Nano) + `"`,
		"Deploy on Fridays?":                       "true",
	} {
		if v := res.Answers[question].Value.String(); v != want {
			t.Errorf("%s: value %s, want %s", question, v, want)
		}
	}
	if res.Status != broker.StatusAnswered || !strings.Contains(broker.AnswerText(res), "8080") {
		t.Errorf("the question ended %s: %s", res.Status, broker.AnswerText(res))
	}
}
