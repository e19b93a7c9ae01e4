package web

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/chromedp/chromedp"
)

// card is the CSS selector of an open question's card.
func card(id string) string { return "#q-" + id }

// past is the CSS selector of a resolved question in the history.
func past(id string) string { return "#h-" + id }

// TestPage drives the inbox in one real headless Chromium: people answer
// questions by clicking, and the agent blocked in b.Wait gets the answer.
func TestPage(t *testing.T) {
	browser := newBrowser(t)

	t.Run("answer with a button", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{
			Question: "Which database should the service use?",
			Header:   "Database",
			Context:  "The service stores about 10 GB of orders.",
			Options: []broker.Option{
				opt("Postgres (Recommended)", "Mature, strong SQL, easy backups"),
				opt("SQLite", "One file, no server"),
				opt("MySQL", ""),
			},
			Default: broker.StringList{"SQLite"},
		})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		c := card(q.ID)
		waitText(t, page, c+" .chip", "Database")
		waitText(t, page, c+" .prompt-text", "Which database should the service use?")
		waitText(t, page, c+" .context", "10 GB of orders")
		waitText(t, page, c+" .deadline", render(q, time.Now(), time.UTC).Deadline)
		// The recommended option wears a badge that says so, beside a
		// hint; it is not a filled control, and nothing is chosen yet.
		waitText(t, page, c+" .choice:nth-child(1) .label", "Postgres")
		waitText(t, page, c+" .choice:nth-child(1) .badge", "Recommended")
		waitText(t, page, c+" .choice:nth-child(1) .desc", "Mature, strong SQL")
		waitText(t, page, c+" .recommended-hint", broker.RecommendedHint)
		if n := eval[int](t, page, fmt.Sprintf(`document.querySelectorAll(%q).length`, c+" .badge")); n != 1 {
			t.Errorf("%d Recommended badges, want exactly the first option's", n)
		}
		if s := eval[string](t, page, fmt.Sprintf(`document.querySelector(%q).textContent`, c+" .choice:nth-child(1) .label")); s != "Postgres" {
			t.Errorf("the recommended option reads %q, want the label without the mark", s)
		}
		if n := eval[int](t, page, fmt.Sprintf(`document.querySelectorAll(%q).length`, c+" .primary:not(.submit), "+c+" input:checked")); n != 0 {
			t.Errorf("%d filled or checked controls before any answer, want none but Submit", n)
		}
		for k := range q.Prompts[0].Options {
			// A choice carries its number, which the form posts with
			// its pick step.
			want := fmt.Sprint(k + 1)
			sel := fmt.Sprintf(`#q-%s-0-%d`, q.ID, k)
			if v := eval[string](t, page, fmt.Sprintf(`document.querySelector(%q).value`, sel)); v != want {
				t.Errorf("choice %d carries %q, want %q", k+1, v, want)
			}
			if v := eval[string](t, page, fmt.Sprintf(`document.querySelector(%q).type`, sel)); v != "radio" {
				t.Errorf("choice %d is a %s, want a radio button", k+1, v)
			}
		}

		do(t, page, reload())
		waitText(t, page, c+" .prompt-text", "Which database")

		pick(t, page, q.ID, 0, 1)
		waitText(t, page, "#notice", "Recorded: SQLite")
		a := result(t, got)
		if a.Status != broker.StatusAnswered || !slices.Equal(a.Answers[q.Prompts[0].Question].Selected, []string{"SQLite"}) {
			t.Fatalf("agent got %s %+v, want answered SQLite", a.Status, a.Answers)
		}
		if a.AnsweredBy == nil || a.AnsweredBy.Channel != "web" || a.AnsweredBy.Name != "local" {
			t.Fatalf("answered_by = %+v, want web/local", a.AnsweredBy)
		}
		waitGone(t, page, c)
		waitText(t, page, past(q.ID)+" .outcome", broker.OutcomeText(a, time.UTC))
	})

	t.Run("multi-select", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{
			Question:    "Which checks should run before merge?",
			Header:      "Checks",
			MultiSelect: true,
			Options:     []broker.Option{opt("Unit tests", ""), opt("Lint", "go vet and staticcheck"), opt("Race detector", "")},
		})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		c := card(q.ID)
		click(t, page, fmt.Sprintf("#q-%s-0-0", q.ID))
		click(t, page, fmt.Sprintf("#q-%s-0-2", q.ID))
		click(t, page, c+" button.submit")
		waitText(t, page, "#notice", "Recorded: Unit tests, Race detector")
		a := result(t, got)
		if want := []string{"Unit tests", "Race detector"}; !slices.Equal(a.Answers[q.Prompts[0].Question].Selected, want) {
			t.Fatalf("agent got %+v, want %v", a.Answers, want)
		}
	})

	t.Run("other answer", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{
			Question: "Where should logs go?",
			Options:  []broker.Option{opt("stdout", ""), opt("A file", "")},
		})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		typeInto(t, page, fmt.Sprintf("#q-%s-0-other", q.ID), "journald, with a 7 day retention\n")
		waitText(t, page, "#notice", "Recorded")
		a := result(t, got)
		ans := a.Answers[q.Prompts[0].Question]
		if a.Status != broker.StatusAnswered || ans.CustomText != "journald, with a 7 day retention" {
			t.Fatalf("agent got %s %+v, want the Other text", a.Status, ans)
		}
	})

	t.Run("decline with a reason", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Question: "May I delete the old backups?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		click(t, page, card(q.ID)+" details.decline summary")
		typeInto(t, page, "#q-"+q.ID+"-reason", "ask the ops team first")
		click(t, page, card(q.ID)+" button.decline-button")
		waitText(t, page, "#notice", "")
		a := result(t, got)
		if a.Status != broker.StatusDeclined || a.Reason != "ask the ops team first" || a.AnsweredBy == nil {
			t.Fatalf("agent got %s reason %q by %+v, want declined with the reason", a.Status, a.Reason, a.AnsweredBy)
		}
		waitText(t, page, past(q.ID)+" .outcome", "Declined by local")
	})

	t.Run("dialog answered prompt by prompt", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
			{Question: "Which language?", Header: "Language", Options: []broker.Option{opt("Go", ""), opt("Rust", "")}},
			{Question: "Which cache?", Header: "Cache", Options: []broker.Option{opt("Redis", ""), opt("None", "")}},
		}})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		c := card(q.ID)
		waitText(t, page, c+" .progress", "0 of 2 answered")
		pick(t, page, q.ID, 0, 0)
		waitText(t, page, "#notice", "Recorded: Go")
		waitText(t, page, c+" .progress", "1 of 2 answered")
		waitText(t, page, c+" fieldset:nth-of-type(1) .given", "Answered: Go")
		if pending := e.get(t, q.ID); pending.Status != broker.StatusPending {
			t.Fatalf("after one prompt the dialog is %s, want pending", pending.Status)
		}
		click(t, page, c+" fieldset:nth-of-type(2) button.skip")
		a := result(t, got)
		if a.Status != broker.StatusAnswered || !a.Answers["Which cache?"].Skipped || a.Answers["Which language?"].Selected[0] != "Go" {
			t.Fatalf("agent got %s %+v, want Go and a skipped cache", a.Status, a.Answers)
		}
		waitText(t, page, past(q.ID)+" .outcome", "Language: Go; Cache: skipped")
	})

	t.Run("answer form", func(t *testing.T) { testAnswerForm(t, browser) })
	t.Run("dialog timeout keeps the answer given", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
			{Question: "Which language?", Header: "Language", Options: []broker.Option{opt("Go", ""), opt("Rust", "")}, Default: broker.StringList{"go"}},
			{Question: "Which cache?", Header: "Cache", Options: []broker.Option{opt("Redis", ""), opt("None", "")}},
		}})
		got := e.wait(t, q.ID)
		page := tab(t, browser, false)
		open(t, page, e.url)
		c := card(q.ID)
		waitText(t, page, c+" .deadline", "default: Language: Go")
		pick(t, page, q.ID, 1, 0)
		waitText(t, page, "#notice", "Recorded: Redis")
		waitText(t, page, c+" .progress", "1 of 2 answered")
		stored := e.get(t, q.ID)
		if _, err := e.b.Expire(context.Background(), stored, stored.ExpiresAt); err != nil {
			t.Fatal(err)
		}
		a := result(t, got)
		if a.Status != broker.StatusTimedOut || a.Fallback != broker.FallbackDefault || !a.Answers["Which language?"].Defaulted || a.Answers["Which cache?"].AnsweredBy == nil {
			t.Fatalf("agent got %s %s %+v, want the cache answer kept and the language defaulted", a.Status, a.Fallback, a.Answers)
		}
		waitGone(t, page, c)
		waitText(t, page, past(q.ID)+" .outcome", "with 1 of 2 answered: Language: Go (default); Cache: Redis (by local)")
	})

	t.Run("two tabs", func(t *testing.T) { testTwoTabs(t, browser) })
	t.Run("many open questions", func(t *testing.T) { testPaging(t, browser) })
	t.Run("stale page", func(t *testing.T) { testStalePage(t, browser) })
	t.Run("closed question", func(t *testing.T) { testClosed(t, browser) })
	t.Run("reminder", func(t *testing.T) { testReminder(t, browser) })
	t.Run("reconnect", func(t *testing.T) { testReconnect(t, browser) })
	t.Run("agent text is inert", func(t *testing.T) { testInert(t, browser) })
	t.Run("forged cross-site post", func(t *testing.T) { testForgedPost(t, browser) })
	t.Run("web token", func(t *testing.T) { testToken(t, browser) })
	t.Run("phone, dark mode, keyboard", func(t *testing.T) { testPhoneDarkKeyboard(t, browser) })
	t.Run("the card's words", func(t *testing.T) { testCardWords(t, browser) })

	if path := os.Getenv("ASKBRIDGE_SCREENSHOT"); path != "" {
		t.Run("screenshot", func(t *testing.T) { screenshot(t, browser, path) })
	}
}

// screenshot writes a picture of the inbox with sample questions, for the
// documentation (docs/web-inbox.png).
func screenshot(t *testing.T, browser context.Context, path string) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	old := e.ask(t, &broker.AskRequest{Question: "Run the migration now?", Options: []broker.Option{opt("Yes", ""), opt("Not yet", "")}})
	e.b.HandleInbound(context.Background(), broker.Inbound{Channel: Name, User: "ana", Name: "ana", Text: broker.FormatOption(old.Ref(0), 0)})
	e.ask(t, &broker.AskRequest{
		Question: "Which checks should run before merge?", Header: "Checks", MultiSelect: true,
		Options: []broker.Option{opt("Unit tests", "Fast, every package"), opt("Race detector", "Slower, catches data races"), opt("Lint", "go vet and staticcheck")},
	})
	e.ask(t, &broker.AskRequest{
		Question: "Which database should the service use?", Header: "Database",
		Context: "The service stores about 10 GB of orders and needs point-in-time recovery.",
		Options: []broker.Option{opt("Postgres (Recommended)", "Mature, strong SQL, easy backups"), opt("SQLite", "One file, no server"), opt("MySQL", "")},
		Default: broker.StringList{"SQLite"},
	})
	page := tab(t, browser, true)
	open(t, page, e.url)
	waitText(t, page, "#open-count", "(2)")
	do(t, page, chromedp.EmulateViewport(900, 800))
	png := eval0(t, page, chromedp.FullScreenshot(100))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func eval0[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}

// testCardWords: the page shows the words of the question's card: a
// dialog's title, what a prompt takes, the text box and every control
// named as the card names them.
func testCardWords(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Route: "snooze", Questions: []broker.Prompt{
		{Question: "Which caches?", Header: "Caches", MultiSelect: true, Options: []broker.Option{opt("Redis", ""), opt("None", "")}},
		{Question: "Anything else?", Header: "Notes"},
	}})
	page := tab(t, browser, false)
	open(t, page, e.url)
	c := card(q.ID)
	want := render(e.get(t, q.ID), time.Now(), time.UTC)
	for _, w := range []struct{ css, text string }{
		{c + " .deadline", want.Deadline},
		{c + " .title", "2 questions, answered one after the other"},
		{c + " .progress", "0 of 2 answered"},
		{c + " fieldset:nth-of-type(1) .expect", "Choose one or more; you can add a note"},
		{c + " fieldset:nth-of-type(1) .other label", "Other or note"},
		{c + " fieldset:nth-of-type(2) .expect", "Answer in your own words"},
		{c + " fieldset:nth-of-type(2) .other label", "Answer"},
		{c + " fieldset:nth-of-type(1) button.submit", "Submit"},
		{c + " fieldset:nth-of-type(1) button.skip", "Skip"},
		{c + " details.discuss summary", "Not ready…"},
		{c + " button.discuss-button", "Not ready"},
		{c + " details.decline summary", "Decline…"},
		{c + " button.decline-button", "Decline"},
		{c + " button.snooze", "Snooze"},
	} {
		if got := eval[string](t, page, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ''`, w.css)); got != w.text {
			t.Errorf("%s reads %q, want %q", w.css, got, w.text)
		}
	}
}
