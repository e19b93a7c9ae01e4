package web

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

// heldTimers makes the page's periodic refresh run only when the test
// says so: every function given to setInterval is kept in
// window.refreshers instead of running on a clock.
func heldTimers(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.refreshers = []; window.setInterval = function (f) { window.refreshers.push(f); return 0; };`,
		})
		return err
	}))
}

// redrawn marks the card css matches, then runs change and waits until
// the page has replaced that card with a new one, so that the checks
// after it see a card that was built again.
func redrawn(t *testing.T, ctx context.Context, css string, change func()) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { document.querySelector(%q).dataset.old = '1'; return true; })()`, css))
	change()
	waitGone(t, ctx, css+"[data-old]")
}

// checked reports which of the boxes ids are ticked.
func checked(t *testing.T, ctx context.Context, ids ...string) []bool {
	t.Helper()
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = eval[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).checked`, id))
	}
	return out
}

func value(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).value`, id))
}

// TestUnsentInput: ticks and a half-typed note survive a live update and
// a periodic refresh that rebuild the card, keep the focus and caret,
// and Submit sends them.
func TestUnsentInput(t *testing.T) {
	browser := newBrowser(t)

	t.Run("a live update and a refresh", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "Which checks?", MultiSelect: true, Reminders: []float64{0.5, 0.9},
			Options: []broker.Option{opt("Unit tests", ""), opt("Lint", ""), opt("Race detector", "")}})
		got := e.wait(t, q.ID)
		p := tab(t, browser, false)
		heldTimers(t, p)
		open(t, p, e.url)
		waitText(t, p, "#conn", "live")
		base := fmt.Sprintf("q-%s-0", q.ID)
		boxes := []string{base + "-0", base + "-1", base + "-2"}
		click(t, p, "#"+boxes[0])
		click(t, p, "#"+boxes[2])
		typeInto(t, p, "#"+base+"-other", "nightly only")
		want := []bool{true, false, true}

		// A live update: the reminder arrives over the event stream.
		redrawn(t, p, card(q.ID), func() {
			if ok, err := e.st.ClaimReminder(context.Background(), q.ID, 1); err != nil || !ok {
				t.Fatalf("claim reminder: %v %v", ok, err)
			}
			if err := e.b.Remind(context.Background(), q.ID); err != nil {
				t.Fatal(err)
			}
		})
		waitText(t, p, card(q.ID)+" .reminder", "Reminder:")
		if got := checked(t, p, boxes...); !slices.Equal(got, want) {
			t.Fatalf("after a live update the boxes are %v, want %v", got, want)
		}
		if v := value(t, p, base+"-other"); v != "nightly only" {
			t.Fatalf("after a live update the note box holds %q, want the half-typed note", v)
		}
		if id := eval[string](t, p, `document.activeElement ? document.activeElement.id : ''`); id != base+"-other" {
			t.Fatalf("after a live update the focus is on %q, want the note box", id)
		}

		// The periodic refresh: a change no event told, read from the state.
		redrawn(t, p, card(q.ID), func() {
			if ok, err := e.st.ClaimReminder(context.Background(), q.ID, 2); err != nil || !ok {
				t.Fatalf("claim reminder: %v %v", ok, err)
			}
			if n := eval[int](t, p, `window.refreshers.length`); n == 0 {
				t.Fatal("the page set no periodic refresh")
			}
			eval[bool](t, p, `(() => { window.refreshers.forEach((f) => f()); return true; })()`)
		})
		if got := checked(t, p, boxes...); !slices.Equal(got, want) {
			t.Fatalf("after a refresh the boxes are %v, want %v", got, want)
		}
		if v := value(t, p, base+"-other"); v != "nightly only" {
			t.Fatalf("after a refresh the note box holds %q, want the half-typed note", v)
		}
		// Typing goes on where it stopped.
		do(t, p, chromedp.SendKeys(chromedp.CSS("#"+base+"-other"), ", please"))
		click(t, p, card(q.ID)+" button.submit")
		waitText(t, p, "#notice", "Recorded: Unit tests, Race detector (note: “nightly only, please”)")
		a := result(t, got).Answers["Which checks?"]
		if !slices.Equal(a.Selected, []string{"Unit tests", "Race detector"}) || a.CustomText != "nightly only, please" {
			t.Fatalf("agent got %+v, want the two ticked options and the note", a)
		}
	})

	// A tick made elsewhere (another person's inbox) shows on the boxes the person
	// left alone; the box they ticked stays as they left it.
	t.Run("the bridge's selection beside the person's", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "Which regions?", MultiSelect: true,
			Options: []broker.Option{opt("eu-west", ""), opt("us-east", ""), opt("ap-south", "")}})
		p := tab(t, browser, false)
		open(t, p, e.url)
		waitText(t, p, "#conn", "live")
		base := fmt.Sprintf("q-%s-0", q.ID)
		click(t, p, "#"+base+"-0")
		redrawn(t, p, card(q.ID), func() {
			rep := e.b.HandleInbound(context.Background(), broker.Inbound{Channel: Name, User: "bo", Name: "bo", Text: broker.FormatToggle(q.Ref(0), 1)})
			if !rep.OK {
				t.Fatalf("bo's toggle: %q", rep.Text)
			}
		})
		if got, want := checked(t, p, base+"-0", base+"-1", base+"-2"), []bool{true, true, false}; !slices.Equal(got, want) {
			t.Fatalf("after bo's tick the boxes are %v, want %v", got, want)
		}
	})

	t.Run("chosen files", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "What does the log say?", Reminders: []float64{0.5}})
		p := tab(t, browser, false)
		open(t, p, e.url)
		waitText(t, p, "#conn", "live")
		files := fmt.Sprintf("q-%s-0-files", q.ID)
		// As a person's pick arrives: the input's files, then its change.
		eval[bool](t, p, fmt.Sprintf(`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File(['boot ok'], 'boot.log', { type: 'text/plain' }));
			const i = document.getElementById(%q);
			i.files = dt.files;
			i.dispatchEvent(new Event('change', { bubbles: true }));
			return true;
		})()`, files))
		waitText(t, p, card(q.ID)+" .chosen", "boot.log")
		redrawn(t, p, card(q.ID), func() {
			if ok, err := e.st.ClaimReminder(context.Background(), q.ID, 1); err != nil || !ok {
				t.Fatalf("claim reminder: %v %v", ok, err)
			}
			if err := e.b.Remind(context.Background(), q.ID); err != nil {
				t.Fatal(err)
			}
		})
		if got := eval[string](t, p, fmt.Sprintf(`Array.from(document.getElementById(%q).files).map((f) => f.name).join(',')`, files)); got != "boot.log" {
			t.Fatalf("after a live update the file input holds %q, want boot.log", got)
		}
		waitText(t, p, card(q.ID)+" .chosen", "boot.log")
	})

	t.Run("a dialog's other prompt", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
			{Question: "Which language?", Header: "Language", Options: []broker.Option{opt("Go", ""), opt("Rust", "")}},
			{Question: "Which cache?", Header: "Cache", Options: []broker.Option{opt("Redis", ""), opt("None", "")}},
		}})
		got := e.wait(t, q.ID)
		p := tab(t, browser, false)
		open(t, p, e.url)
		c := card(q.ID)
		waitText(t, p, c+" .progress", "0 of 2 answered")
		first := fmt.Sprintf("q-%s-0-1", q.ID)
		click(t, p, "#"+first)
		// In a dialog the note opens on demand.
		click(t, p, fmt.Sprintf("#q-%s-0-note-toggle", q.ID))
		typeInto(t, p, fmt.Sprintf("#q-%s-0-other", q.ID), "for the parser")
		pick(t, p, q.ID, 1, 0)
		waitText(t, p, "#notice", "Recorded: Redis")
		waitText(t, p, c+" .progress", "1 of 2 answered")
		waitText(t, p, c+" fieldset:nth-of-type(2) .given", "Answered: Redis")
		if got := checked(t, p, fmt.Sprintf("q-%s-0-0", q.ID), first); !slices.Equal(got, []bool{false, true}) {
			t.Fatalf("after the other prompt's Submit the first prompt's options are %v, want Rust still picked", got)
		}
		if v := value(t, p, fmt.Sprintf("q-%s-0-other", q.ID)); v != "for the parser" {
			t.Fatalf("after the other prompt's Submit the first prompt's note is %q", v)
		}
		if eval[bool](t, p, fmt.Sprintf(`document.getElementById("q-%s-0-note").hidden`, q.ID)) {
			t.Fatal("after the other prompt's Submit the first prompt's note is folded away")
		}
		if n := eval[int](t, p, fmt.Sprintf(`document.querySelectorAll('[id^="q-%s-1-"]').length`, q.ID)); n != 0 {
			t.Fatalf("the answered prompt still has %d controls", n)
		}
		click(t, p, c+" fieldset:nth-of-type(1) button.submit")
		a := result(t, got)
		if l := a.Answers["Which language?"]; !slices.Equal(l.Selected, []string{"Rust"}) || l.CustomText != "for the parser" {
			t.Fatalf("agent got %+v for the language, want Rust with the note", l)
		}
		if c := a.Answers["Which cache?"]; !slices.Equal(c.Selected, []string{"Redis"}) {
			t.Fatalf("agent got %+v for the cache, want Redis", c)
		}
	})

	t.Run("a conversation's message box", func(t *testing.T) {
		e := newTalkEnv(t)
		ctx := context.Background()
		q := e.ended(t, true)
		_, cursor, err := e.br.SessionMessages(ctx, "agent", "s1", -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		p := tab(t, browser, false)
		open(t, p, e.url)
		waitText(t, p, past(q.ID)+" .conversation label", "Message to the agent")
		box := "h-" + q.ID + "-say"
		typeInto(t, p, "#"+box, "Why that command?\n")
		waitText(t, p, "#notice", "Sent to the agent's session.")
		waitText(t, p, past(q.ID)+" .line.person", "Why that command?")
		typeInto(t, p, "#"+box, "And the tests")
		redrawn(t, p, past(q.ID), func() {
			if _, err := e.br.ReplyInSession(ctx, "agent", "s1", 0, "Done rebuilding."); err != nil {
				t.Fatal(err)
			}
		})
		waitText(t, p, past(q.ID)+" .line.agent", "Done rebuilding.")
		if v := value(t, p, box); v != "And the tests" {
			t.Fatalf("after a new message the box holds %q, want the half-typed text", v)
		}
		do(t, p, chromedp.SendKeys(chromedp.CSS("#"+box), "?\n"))
		waitText(t, p, past(q.ID)+" .lines", "And the tests?")
		msgs, _, err := e.br.SessionMessages(ctx, "agent", "s1", cursor, 0)
		if err != nil || len(msgs) != 2 || msgs[1].Text != "And the tests?" {
			t.Fatalf("the session got %+v, %v, want the whole message", msgs, err)
		}
	})
}
