package web

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

// rect is an element's bounding box on the page, in page coordinates.
type rect struct{ Top, Bottom, Left, Right float64 }

// boundsOf returns the bounding box of the element css matches.
func boundsOf(t *testing.T, p context.Context, css string) rect {
	t.Helper()
	return eval[rect](t, p, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return { Top: r.top + scrollY, Bottom: r.bottom + scrollY, Left: r.left, Right: r.right }; })()`, css))
}

func (r rect) contains(o rect) bool {
	return o.Top >= r.Top && o.Bottom <= r.Bottom && o.Left >= r.Left && o.Right <= r.Right
}

// TestCardReply: the bridge's reply to a card's control shows on that
// card beside the control, in a region screen readers read out, not
// only at the top of the page.
func TestCardReply(t *testing.T) {
	browser := newBrowser(t)
	e := newEnv(t, Config{}, Options{Loopback: true})
	lower := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which language?", Header: "Language", Options: []broker.Option{opt("Go", ""), opt("Rust", "")}},
		{Question: "Which cache?", Header: "Cache", Options: []broker.Option{opt("Redis", ""), opt("None", "")}},
	}})
	for _, q := range []string{"Ship on Friday?", "Which region first?"} {
		e.ask(t, &broker.AskRequest{Question: q, Options: []broker.Option{opt("Yes", "Mirrors production"), opt("No", "")}})
	}
	p := tab(t, browser, false)
	open(t, p, e.url)
	c := card(lower.ID)
	waitText(t, p, c+" .progress", "0 of 2 answered")

	// Submit with nothing chosen: the page's own refusal, as an alert.
	first := c + " fieldset:nth-of-type(1)"
	click(t, p, first+" button.submit")
	said := fmt.Sprintf("#q-%s-0-said", lower.ID)
	waitText(t, p, said, "Choose an option, type an answer or attach a file, then Submit.")
	if got := eval[string](t, p, fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-live') + ' ' + document.querySelector(%q).getAttribute('role')`, said, said)); got != "polite alert" {
		t.Errorf("the card's reply region is %q, want aria-live polite and role alert for a refusal", got)
	}
	cardBox, button, reply := boundsOf(t, p, c), boundsOf(t, p, first+" button.submit"), boundsOf(t, p, said)
	if !cardBox.contains(reply) {
		t.Errorf("the reply %+v is outside its card %+v", reply, cardBox)
	}
	if gap := reply.Top - button.Bottom; gap < 0 || gap > 40 {
		t.Errorf("the reply starts %.0f px below the Submit it answers, want it right under it (0–40 px)", gap)
	}
	if notice := boundsOf(t, p, "#notice"); button.Top-notice.Bottom < 300 {
		t.Fatalf("the lower card's Submit is only %.0f px below the top notice; the test needs it far", button.Top-notice.Bottom)
	}

	// The bridge's reply to the other prompt stays on the card once the
	// card is built again without that prompt's form.
	pick(t, p, lower.ID, 1, 0)
	waitText(t, p, c+" fieldset:nth-of-type(2) .given", "Answered: Redis")
	waitText(t, p, c+" .card-reply.ok", "Recorded: Redis")
	if role := eval[string](t, p, fmt.Sprintf(`String(document.querySelector(%q).getAttribute('role'))`, c+" .card-reply.ok")); role != "null" {
		t.Errorf("a good reply has role %s, want none (polite)", role)
	}
	if got := eval[string](t, p, fmt.Sprintf(`document.querySelector(%q).textContent`, said)); got != "" {
		t.Errorf("the first prompt's region still says %q after another prompt's answer", got)
	}
}

// TestCompactDialog: a dialog of two prompts stays near one phone
// screen (1067 px, 1.26 screens, with a note box and a native file input
// under every prompt; 885 px with them folded): the note opens on demand and the file picker is one button naming the
// files chosen; a note opened so is sent with the answer.
func TestCompactDialog(t *testing.T) {
	browser := newBrowser(t)
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database should the service use?", Header: "Database",
			Options: []broker.Option{opt("Postgres", "Relational, runs in the cluster"), opt("SQLite", "One file, no server"), opt("Redis", "In memory")}},
		{Question: "Which cache in front of it?", Header: "Cache",
			Options: []broker.Option{opt("Redis", "Shared"), opt("In process", "Per replica"), opt("None", "")}},
	}})
	got := e.wait(t, q.ID)
	p := tab(t, browser, true)
	do(t, p, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	open(t, p, e.url)
	c := card(q.ID)
	waitText(t, p, c+" .progress", "0 of 2 answered")
	height := boundsOf(t, p, c)
	screens := (height.Bottom - height.Top) / 844
	t.Logf("the dialog is %.0f px high at 390x844: %.2f screens", height.Bottom-height.Top, screens)
	if screens > 1.15 {
		t.Errorf("the dialog is %.2f screens high at 390x844, want at most 1.15", screens)
	}
	note := fmt.Sprintf("#q-%s-0-other", q.ID)
	if eval[bool](t, p, fmt.Sprintf(`document.querySelector(%q).offsetParent !== null`, note)) {
		t.Error("the first prompt's note box shows before it is asked for")
	}
	if n := eval[int](t, p, fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).filter((i) => i.getBoundingClientRect().width > 2).length`, c+" input[type=file]")); n != 0 {
		t.Errorf("%d native file inputs show; want them behind their buttons", n)
	}

	// Files chosen are named beside the button.
	eval[bool](t, p, fmt.Sprintf(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(['boot ok'], 'boot.log', { type: 'text/plain' }));
		dt.items.add(new File(['cpu 80%%'], 'notes.txt', { type: 'text/plain' }));
		const i = document.getElementById(%q);
		i.files = dt.files;
		i.dispatchEvent(new Event('change', { bubbles: true }));
		return true;
	})()`, fmt.Sprintf("q-%s-1-files", q.ID)))
	waitText(t, p, c+" fieldset:nth-of-type(2) .chosen", "Attached: boot.log, notes.txt")
	if lab := eval[string](t, p, fmt.Sprintf(`document.querySelector('#q-%s-1-files-button').textContent`, q.ID)); lab != "Attach files" {
		t.Errorf("the file button reads %q", lab)
	}

	// The note opens on demand and goes with the answer.
	toggle := fmt.Sprintf("#q-%s-0-note-toggle", q.ID)
	click(t, p, toggle)
	if v := eval[string](t, p, fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-expanded')`, toggle)); v != "true" {
		t.Errorf("the open note's toggle has aria-expanded=%s", v)
	}
	click(t, p, fmt.Sprintf("#q-%s-0-1", q.ID))
	typeInto(t, p, note, "for the first release")
	click(t, p, c+" fieldset:nth-of-type(1) button.submit")
	waitText(t, p, c+" fieldset:nth-of-type(1) .given", "Answered: SQLite")
	pick(t, p, q.ID, 1, 2)
	a := result(t, got)
	if d := a.Answers["Which database should the service use?"]; !slices.Equal(d.Selected, []string{"SQLite"}) || d.CustomText != "for the first release" {
		t.Fatalf("agent got %+v for the database, want SQLite with the note", d)
	}
}

// TestReplyFollowsTheAnsweredQuestion: a single question answered on its
// card leaves the open list, and the bridge's reply goes with it: it
// stands on the question's history item, which takes the focus (so a
// screen reader reads it and the page shows it), not only in the notice
// at the top of the page.
func TestReplyFollowsTheAnsweredQuestion(t *testing.T) {
	browser := newBrowser(t)
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Ship on Friday?", Options: []broker.Option{opt("Yes", "Mirrors production"), opt("No", "")}})
	for _, text := range []string{"Which region first?", "Rotate the keys?"} {
		e.ask(t, &broker.AskRequest{Question: text, Options: []broker.Option{opt("Yes", "Mirrors production"), opt("No", "")}})
	}
	p := tab(t, browser, false)
	open(t, p, e.url)
	waitText(t, p, card(q.ID)+" .deadline", "Expires")

	pick(t, p, q.ID, 0, 1)
	foot := past(q.ID) + " .card-reply.foot"
	waitText(t, p, foot, "Recorded: No")
	waitGone(t, p, card(q.ID))
	type state struct {
		Focused, InView, Good  bool
		Top, Bottom, Height, Y float64
	}
	// In view within a pixel: scrolling aligns to fractional positions.
	got := eval[state](t, p, fmt.Sprintf(`(() => { const f = document.querySelector(%q); const r = f.getBoundingClientRect();
		return { Focused: document.activeElement === f, InView: r.top >= -1 && r.bottom <= innerHeight + 1,
			Good: f.classList.contains('ok') && !f.classList.contains('bad') && f.getAttribute('role') === null, Top: r.top, Bottom: r.bottom, Height: innerHeight, Y: scrollY }; })()`, foot))
	if !got.Focused || !got.InView || !got.Good {
		t.Fatalf("the history item's reply: %+v; want it focused, in view, and marked good news", got)
	}

	// A question another person answers leaves without moving anyone's
	// focus, and its history item carries no reply.
	other := e.ask(t, &broker.AskRequest{Question: "Tag the release?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	waitText(t, p, card(other.ID)+" .deadline", "Expires")
	if rep := e.b.HandleInbound(context.Background(), broker.Inbound{Channel: Name, User: "bob", Name: "Bob", Text: "/answer " + other.ID + " Yes"}); !rep.OK {
		t.Fatalf("answer: %s", rep.Text)
	}
	waitGone(t, p, card(other.ID))
	waitText(t, p, past(other.ID)+" .outcome", "Yes")
	if text := eval[string](t, p, fmt.Sprintf(`document.querySelector(%q).textContent`, past(other.ID)+" .card-reply.foot")); text != "" {
		t.Errorf("another person's answer left %q on the history item", text)
	}
}
