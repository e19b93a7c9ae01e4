package web

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// testTwoTabs: an answer in one tab shows in the other at once; the other
// tab's late answer is refused with who answered, and changes nothing.
func testTwoTabs(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Ship the release today?", Options: []broker.Option{opt("Ship it", ""), opt("Wait", "")}})
	got := e.wait(t, q.ID)
	one, two := tab(t, browser, false), tab(t, browser, false)
	open(t, one, e.url)
	open(t, two, e.url)
	waitText(t, two, card(q.ID)+" .prompt-text", "Ship the release today?")

	pick(t, one, q.ID, 0, 0)
	waitText(t, one, "#notice", "Recorded: Ship it")
	first := result(t, got)
	waitGone(t, two, card(q.ID))
	waitText(t, two, past(q.ID)+" .outcome", "Answered by local")

	typeInto(t, two, "#cmd", broker.FormatOption(q.Ref(0), 1)+"\n")
	waitText(t, two, "#notice", "Already answered by local at")
	assertUnchanged(t, e, first)
}

// testStalePage: a page that missed the update still shows the buttons; a
// click on them is refused with who answered first, and the page catches up.
func testStalePage(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Rotate the API keys?", Options: []broker.Option{opt("Rotate now", ""), opt("Next week", "")}})
	stale := tab(t, browser, false)
	// This page hears nothing by itself: no event stream, no polling.
	do(t, stale, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `delete window.EventSource; window.EventSource = undefined; window.setInterval = function () { return 0; };`,
		})
		return err
	}))
	open(t, stale, e.url)
	waitText(t, stale, card(q.ID)+" .prompt-text", "Rotate the API keys?")

	rep := e.b.HandleInbound(context.Background(), broker.Inbound{Channel: Name, User: "ana", Name: "ana", Text: broker.FormatOption(q.Ref(0), 1)})
	if !rep.OK {
		t.Fatalf("ana's answer: %q", rep.Text)
	}
	first := e.get(t, q.ID)

	pick(t, stale, q.ID, 0, 0)
	waitText(t, stale, "#notice", "Already answered by ana at")
	waitGone(t, stale, card(q.ID))
	waitText(t, stale, past(q.ID)+" .outcome", "Answered by ana")
	assertUnchanged(t, e, first)
}

// testClosed: a command for a cancelled question is explained on the page.
func testClosed(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Merge the branch?", Options: []broker.Option{opt("Merge", ""), opt("Hold", "")}})
	p := tab(t, browser, false)
	open(t, p, e.url)
	waitText(t, p, card(q.ID)+" .prompt-text", "Merge the branch?")
	cancelled, err := e.b.Cancel(context.Background(), "agent", q.ID, "the agent found the answer itself")
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, p, card(q.ID))
	waitText(t, p, past(q.ID)+" .outcome", "Cancelled at")
	typeInto(t, p, "#cmd", broker.FormatOption(q.Ref(0), 0)+"\n")
	waitText(t, p, "#notice", "This question was cancelled at")
	waitText(t, p, "#notice", "the agent found the answer itself")
	assertUnchanged(t, e, cancelled)

	typeInto(t, p, "#cmd", "/answer nothere 2\n")
	waitText(t, p, "#notice", "nothere")
}

// testReminder: a reminder marks the question with the time left.
func testReminder(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Approve the budget?", Options: []broker.Option{opt("Approve", ""), opt("Reject", "")}, Reminders: []float64{0.5}})
	p := tab(t, browser, false)
	open(t, p, e.url)
	waitText(t, p, card(q.ID)+" .prompt-text", "Approve the budget?")
	if n := eval[int](t, p, `document.querySelectorAll('.reminder').length`); n != 0 {
		t.Fatalf("%d reminders shown before any was sent", n)
	}
	// As the sweeper sends it: the reminder is claimed in the store, then
	// the broker nudges every copy. A page reloaded later reads it there.
	if ok, err := e.st.ClaimReminder(context.Background(), q.ID, 1); err != nil || !ok {
		t.Fatalf("claim reminder: %v %v", ok, err)
	}
	if err := e.b.Remind(context.Background(), q.ID); err != nil {
		t.Fatal(err)
	}
	waitText(t, p, card(q.ID)+" .reminder", "Reminder: this question is still open and expires in")
	if !eval[bool](t, p, `document.querySelector('`+card(q.ID)+`').classList.contains('reminded')`) {
		t.Error("reminded card is not marked")
	}
	do(t, p, reload())
	waitText(t, p, card(q.ID)+" .reminder", "Reminder:")
}

// assertUnchanged checks that the stored question still has the
// resolution it had.
func assertUnchanged(t *testing.T, e *env, want *broker.Question) {
	t.Helper()
	now := e.get(t, want.ID)
	if now.Status != want.Status || !reflect.DeepEqual(now.Answers, want.Answers) || !now.ResolvedAt.Equal(want.ResolvedAt) || !reflect.DeepEqual(now.AnsweredBy, want.AnsweredBy) {
		t.Fatalf("question changed: now %s %+v by %+v at %v, was %s %+v by %+v at %v",
			now.Status, now.Answers, now.AnsweredBy, now.ResolvedAt, want.Status, want.Answers, want.AnsweredBy, want.ResolvedAt)
	}
}

// testReconnect: a page whose stream dropped re-reads the state when it
// reconnects, so a change it never heard of still shows, and a question
// resolved meanwhile is not left open.
func testReconnect(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Renew the certificate?", Options: []broker.Option{opt("Renew", ""), opt("Later", "")}})
	p := tab(t, browser, false)
	open(t, p, e.url)
	waitText(t, p, card(q.ID)+" .prompt-text", "Renew the certificate?")
	waitText(t, p, "#conn", "live")

	// Resolved behind the page's back: no Update, so no event.
	if _, err := e.st.Resolve(context.Background(), q.ID, broker.Resolution{
		Status: broker.StatusAnswered, Answers: map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"Later"}}},
		AnsweredBy: &broker.Responder{Channel: "telegram", User: "7", Name: "bo"}, ResolvedAt: time.Now().UTC(),
	}); err != nil {
		t.Fatal(err)
	}
	if eval[int](t, p, `document.querySelectorAll('#open li').length`) != 1 {
		t.Fatal("the page changed without an event; this test needs it not to")
	}
	e.ch.hub.dropAll()
	waitGone(t, p, card(q.ID))
	waitText(t, p, past(q.ID)+" .outcome", "Answered by bo")
	waitText(t, p, "#conn", "live")
}
