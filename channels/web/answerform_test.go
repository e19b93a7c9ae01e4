package web

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// pick answers prompt i of question id the way a person does: tick
// option k (0-based), then press the prompt's Submit.
func pick(t *testing.T, ctx context.Context, id string, i, k int) {
	t.Helper()
	click(t, ctx, fmt.Sprintf("#q-%s-%d-%d", id, i, k))
	click(t, ctx, fmt.Sprintf("%s fieldset:nth-of-type(%d) button.submit", card(id), i+1))
}

// testAnswerForm: one form per prompt sends options and the Other box
// together as one command; Skip and Not ready are buttons; what cannot
// be sent is said and sends nothing.
func testAnswerForm(t *testing.T, browser context.Context) {
	searchOptions := []broker.Option{opt("Search", "Find by name"), opt("Browse", ""), opt("Recent", "")}

	t.Run("an option and a note", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "How should people find a document?", Options: searchOptions})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		waitText(t, page, card(q.ID)+" .other label", "Other or note")
		click(t, page, fmt.Sprintf("#q-%s-0-0", q.ID))
		typeInto(t, page, fmt.Sprintf("#q-%s-0-other", q.ID), "and tags")
		click(t, page, card(q.ID)+" button.submit")
		waitText(t, page, "#notice", "Recorded: Search (note: “and tags”)")
		a := result(t, got).Answers[q.Prompts[0].Question]
		if !slices.Equal(a.Selected, []string{"Search"}) || a.CustomText != "and tags" {
			t.Fatalf("agent got %+v, want selected [Search] and custom_text \"and tags\"", a)
		}
	})

	t.Run("options and a note", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "Which checks?", MultiSelect: true, Options: []broker.Option{opt("Unit tests", ""), opt("Lint", ""), opt("Race detector", "")}})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		click(t, page, fmt.Sprintf("#q-%s-0-0", q.ID))
		click(t, page, fmt.Sprintf("#q-%s-0-2", q.ID))
		typeInto(t, page, fmt.Sprintf("#q-%s-0-other", q.ID), "nightly only\n")
		waitText(t, page, "#notice", "Recorded: Unit tests, Race detector (note: “nightly only”)")
		a := result(t, got).Answers[q.Prompts[0].Question]
		if !slices.Equal(a.Selected, []string{"Unit tests", "Race detector"}) || a.CustomText != "nightly only" {
			t.Fatalf("agent got %+v, want two options and the note", a)
		}
	})

	// An option with a text to edit fills the note box when picked,
	// keeps lines, gives the box back when another option is picked,
	// and never overwrites what the person typed.
	t.Run("an option to edit", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		const cmd = "make test \\\n  -j4"
		q := e.ask(t, &broker.AskRequest{Question: "Allow Bash?", Options: []broker.Option{
			opt("Allow once", ""), {Label: "Allow with changes", Edit: cmd}, opt("Deny", "")}})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		box := fmt.Sprintf("#q-%s-0-other", q.ID)
		value := fmt.Sprintf(`document.querySelector(%q).value`, box)
		click(t, page, fmt.Sprintf("#q-%s-0-1", q.ID))
		waitText(t, page, card(q.ID)+" .other label", "Edit this, then Submit")
		if v := eval[string](t, page, value); v != cmd {
			t.Fatalf("the note box holds %q after picking the option to edit, want %q", v, cmd)
		}
		click(t, page, fmt.Sprintf("#q-%s-0-0", q.ID))
		if v := eval[string](t, page, value); v != "" {
			t.Fatalf("the note box holds %q after picking another option, want it empty", v)
		}
		typeInto(t, page, box, "mine")
		click(t, page, fmt.Sprintf("#q-%s-0-1", q.ID))
		if v := eval[string](t, page, value); v != "mine" {
			t.Fatalf("picking the option replaced the person's text: %q", v)
		}
		typeInto(t, page, box, "make test -j8")
		click(t, page, card(q.ID)+" button.submit")
		waitText(t, page, "#notice", "Recorded: Allow with changes (note: “make test -j8”)")
		a := result(t, got).Answers["Allow Bash?"]
		if !slices.Equal(a.Selected, []string{"Allow with changes"}) || a.CustomText != "make test -j8" {
			t.Fatalf("agent got %+v, want the option and the edited command", a)
		}
	})

	t.Run("other false has no note box", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		no := false
		q := e.ask(t, &broker.AskRequest{Question: "Proceed?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}, Other: &no})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		waitText(t, page, card(q.ID)+" .prompt-text", "Proceed?")
		if n := eval[int](t, page, fmt.Sprintf(`document.querySelectorAll(%q).length`, card(q.ID)+" input[type=text]:not([id$=-reason]):not([id$=-message])")); n != 0 {
			t.Fatalf("%d text boxes for a question that takes no free text", n)
		}
		click(t, page, card(q.ID)+" button.submit")
		waitText(t, page, "#notice", "Choose an option, then Submit.")
		if s := e.get(t, q.ID).Status; s != broker.StatusPending {
			t.Fatalf("an empty Submit changed the question to %s", s)
		}
		pick(t, page, q.ID, 0, 1)
		waitText(t, page, "#notice", "Recorded: No")
		if a := result(t, got).Answers["Proceed?"]; !slices.Equal(a.Selected, []string{"No"}) || a.CustomText != "" {
			t.Fatalf("agent got %+v", a)
		}
	})

	t.Run("empty submit", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "Which one?", Options: searchOptions})
		page := tab(t, browser, false)
		open(t, page, e.url)
		click(t, page, card(q.ID)+" button.submit")
		waitText(t, page, "#notice", "Choose an option, type an answer or attach a file, then Submit.")
		if s := e.get(t, q.ID).Status; s != broker.StatusPending {
			t.Fatalf("an empty Submit changed the question to %s", s)
		}
	})

	t.Run("skip a single question", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "Anything to add to the changelog?", Options: searchOptions})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		click(t, page, card(q.ID)+" button.skip")
		waitText(t, page, "#notice", "Recorded: skipped")
		a := result(t, got)
		if a.Status != broker.StatusAnswered || !a.Answers[q.Prompts[0].Question].Skipped {
			t.Fatalf("agent got %s %+v, want answered and skipped", a.Status, a.Answers)
		}
	})

	t.Run("not ready", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "Drop the legacy table?", Options: []broker.Option{opt("Drop it", ""), opt("Keep it", "")}})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		click(t, page, card(q.ID)+" details.discuss summary")
		typeInto(t, page, "#q-"+q.ID+"-message", "who still reads it?")
		click(t, page, card(q.ID)+" button.discuss-button")
		waitText(t, page, "#notice", "Recorded: you want to discuss before answering")
		a := result(t, got)
		if a.Status != broker.StatusDeclined || !a.NotReady || a.Reason != "who still reads it?" {
			t.Fatalf("agent got %s not_ready=%v reason %q, want declined, not ready, with the message", a.Status, a.NotReady, a.Reason)
		}
		waitText(t, page, past(q.ID)+" .outcome", "Not ready to answer")
	})
}
