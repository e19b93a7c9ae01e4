package discord

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/bwmarrin/discordgo"
)

// flat lists the components of rendered rows.
func flat(rows []discordgo.MessageComponent) []discordgo.MessageComponent {
	var out []discordgo.MessageComponent
	for _, r := range rows {
		out = append(out, r.(discordgo.ActionsRow).Components...)
	}
	return out
}

func customIDs(rows []discordgo.MessageComponent) []string {
	var ids []string
	for _, c := range flat(rows) {
		switch v := c.(type) {
		case discordgo.Button:
			ids = append(ids, v.CustomID)
		case discordgo.SelectMenu:
			ids = append(ids, v.CustomID)
		}
	}
	return ids
}

func TestRenderSinglePrompt(t *testing.T) {
	q := question("k7m2qx", dbPrompt())
	q.Context = "We are choosing storage for the bridge."
	m := render(q, at)

	for _, want := range []string{
		"**[Database]**", "Which database should we use?", "Postgres \\(Recommended\\) — Reliable and relational",
		"SQLite — Embedded, zero set\\-up", "> We are choosing storage for the bridge.",
		"Expires 14:30 UTC · default: SQLite", "`/answer k7m2qx 1`", "_" + escape(broker.RecommendedHint) + "_",
	} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, m.Content)
		}
	}
	want := []string{
		"1o:k7m2qx.1/1:1", "1o:k7m2qx.1/1:2", "1o:k7m2qx.1/1:3",
		"1n:k7m2qx.1/1", "1s:k7m2qx.1/1", "1w:k7m2qx.1/1", "1c:k7m2qx.1/1",
	}
	if got := customIDs(m.Components); !slices.Equal(got, want) {
		t.Errorf("custom ids = %q, want %q", got, want)
	}
	buttons := flat(m.Components)
	if b := buttons[0].(discordgo.Button); b.Style != discordgo.PrimaryButton || b.Label != "1. Postgres (Recommended)" {
		t.Errorf("recommended button = %+v, want primary \"1. Postgres (Recommended)\"", b)
	}
	if b := buttons[1].(discordgo.Button); b.Style != discordgo.SecondaryButton {
		t.Errorf("second option style = %v, want secondary", b.Style)
	}
	if b := buttons[len(buttons)-1].(discordgo.Button); b.Label != "Decline" || b.Style != discordgo.DangerButton {
		t.Errorf("last button = %+v, want Decline", b)
	}
	if b := buttons[len(buttons)-2].(discordgo.Button); b.Label != "Not ready" || b.Style != discordgo.SecondaryButton {
		t.Errorf("next to last button = %+v, want Not ready", b)
	}
	if b := buttons[3].(discordgo.Button); b.Label != "Other or note…" {
		t.Errorf("fourth button = %+v, want Other or note…", b)
	}
}

func TestRenderMultiSelect(t *testing.T) {
	p := dbPrompt()
	p.MultiSelect = true
	q := question("k7m2qx", p)
	q.Selections = map[int][]int{0: {1}}
	m := render(q, at)
	menu, ok := flat(m.Components)[0].(discordgo.SelectMenu)
	if !ok {
		t.Fatalf("first component is %T, want a select menu", flat(m.Components)[0])
	}
	if menu.CustomID != "1a:k7m2qx.1/1" || menu.MaxValues != 3 || menu.MinValues == nil || *menu.MinValues != 1 {
		t.Errorf("menu = %+v, want custom_id 1a:k7m2qx.1/1 (a note may follow), min 1, max 3", menu)
	}
	var values []string
	for _, o := range menu.Options {
		values = append(values, o.Value)
	}
	if !slices.Equal(values, []string{"0", "1", "2"}) {
		t.Errorf("menu values = %q, want option indexes", values)
	}
	if !menu.Options[1].Default || menu.Options[0].Default {
		t.Errorf("toggled selection is not pre-selected: %+v", menu.Options)
	}
	if len(m.Components[0].(discordgo.ActionsRow).Components) != 1 {
		t.Errorf("the select menu shares its row")
	}
	if !strings.Contains(m.Content, "Choose one or more; you can add a note.") {
		t.Errorf("content does not say several may be chosen, with a note:\n%s", m.Content)
	}
	picked, err := menuOptions([]string{"2", "0"})
	if err != nil || !slices.Equal(picked, []int{0, 2}) {
		t.Errorf("menu submission = %v, %v; want options 0 and 2", picked, err)
	}
	p.Other = new(bool)
	if menu := flat(render(question("k7m2qx", p), at).Components)[0].(discordgo.SelectMenu); menu.CustomID != "1p:k7m2qx.1/1" {
		t.Errorf("with other: false the menu is %q, want 1p:k7m2qx.1/1 (no note)", menu.CustomID)
	}
}

// TestReadStep: every custom id the channel writes reads back as the
// step it carries; a command is an earlier bridge's button; anything else
// is refused.
func TestReadStep(t *testing.T) {
	ref := broker.PromptRef{ID: "k7m2qx", Index: 2, Count: 4}
	for _, tt := range []struct {
		id   string
		want broker.Step
		err  bool
	}{
		{"1a:k7m2qx.3/4:134", broker.Step{Kind: broker.StepWithNote, Ref: ref, Options: []int{0, 2, 3}}, false},
		{"1n:k7m2qx.3/4", broker.Step{Kind: broker.StepNote, Ref: ref}, false},
		{"1p:k7m2qx.3/4", broker.Step{Kind: broker.StepPick, Ref: ref}, false},
		{"/answer k7m2qx 2", broker.Step{Legacy: "/answer k7m2qx 2"}, false},
		{"1o:k7m2qx.3/4", broker.Step{}, true},
		{"hello", broker.Step{}, true},
	} {
		got, err := readStep(tt.id)
		if (err != nil) != tt.err || got.Kind != tt.want.Kind || got.Ref != tt.want.Ref || got.Legacy != tt.want.Legacy || !slices.Equal(got.Options, tt.want.Options) {
			t.Errorf("readStep(%q) = %+v, %v; want %+v (error %v)", tt.id, got, err, tt.want, tt.err)
		}
	}
	if nums, err := typedNumbers(" 3, 1 "); err != nil || !slices.Equal(nums, []int{0, 2}) {
		t.Errorf("typed numbers = %v, %v", nums, err)
	}
	if _, bad := typedNumbers("SQLite"); bad == nil || !strings.Contains(bad.say(i18n.For(i18n.English)), "“SQLite” is not an option number") {
		t.Errorf("typed label: %v", bad)
	}
	if picked, err := menuOptions([]string{"2", "0", "2"}); err != nil || !slices.Equal(picked, []int{0, 2}) {
		t.Errorf("menu submission = %v, %v; want options 0 and 2", picked, err)
	}
}

func TestRenderDialog(t *testing.T) {
	full := func(h string) broker.Prompt {
		return broker.Prompt{Question: "Pick a " + h, Header: h, Options: []broker.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}, {Label: "D"}}}
	}
	tests := []struct {
		name      string
		prompts   []broker.Prompt
		progress  []*broker.Answer
		wantIDs   []string // must be present
		wantNot   []string // must be absent
		wantTyped string   // shown in the content instead of a component
	}{
		{
			name:    "two prompts with skip",
			prompts: []broker.Prompt{full("db"), {Question: "Anything else?"}},
			wantIDs: []string{"1o:k7m2qx.1/2:1", "1s:k7m2qx.1/2", "1x:k7m2qx.2/2", "1s:k7m2qx.2/2", "1c:k7m2qx.1/2"},
		},
		{
			name:      "four full prompts do not fit five rows",
			prompts:   []broker.Prompt{full("a"), full("b"), full("c"), full("d")},
			wantIDs:   []string{"1o:k7m2qx.1/4:4", "1o:k7m2qx.2/4:4", "1c:k7m2qx.1/4"},
			wantNot:   []string{"1o:k7m2qx.4/4:1"},
			wantTyped: "`/answer k7m2qx.3 1`",
		},
		{
			name:     "answered prompts lose their buttons",
			prompts:  []broker.Prompt{full("a"), full("b")},
			progress: []*broker.Answer{{Selected: []string{"B"}}, nil},
			wantIDs:  []string{"1o:k7m2qx.2/2:1"},
			wantNot:  []string{"1o:k7m2qx.1/2:1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := question("k7m2qx", tt.prompts...)
			q.Progress = tt.progress
			m := render(q, at)
			if len(m.Components) > maxRows {
				t.Fatalf("%d rows, Discord allows %d", len(m.Components), maxRows)
			}
			for _, r := range m.Components {
				if n := len(r.(discordgo.ActionsRow).Components); n == 0 || n > maxButtonsPerRow {
					t.Errorf("a row has %d components", n)
				}
			}
			ids := customIDs(m.Components)
			for _, id := range tt.wantIDs {
				if !slices.Contains(ids, id) {
					t.Errorf("missing component %q in %q", id, ids)
				}
			}
			for _, id := range tt.wantNot {
				if slices.Contains(ids, id) {
					t.Errorf("unexpected component %q", id)
				}
			}
			if tt.wantTyped != "" && !strings.Contains(m.Content, tt.wantTyped) {
				t.Errorf("content lacks the typed command %s:\n%s", tt.wantTyped, m.Content)
			}
			if tt.progress != nil && !strings.Contains(m.Content, "✓ B") {
				t.Errorf("content does not show the answered prompt:\n%s", m.Content)
			}
		})
	}
}

func TestRenderLongCustomID(t *testing.T) {
	long := strings.Repeat("x", 120)
	q := question(long, dbPrompt())
	m := render(q, at)
	for _, id := range customIDs(m.Components) {
		if utf8.RuneCountInString(id) > maxCustomID {
			t.Errorf("custom_id of %d characters rendered: %q", len(id), id)
		}
	}
	if len(m.Components) != 0 {
		t.Errorf("components = %d rows, want none (every candidate is too long)", len(m.Components))
	}
	if m.Components == nil {
		t.Errorf("components is nil; want an empty list")
	}
	for _, want := range []string{"`/answer " + long + " 2` SQLite", "`/decline " + long + "`"} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("content lacks the typed command %q:\n%s", want, m.Content)
		}
	}
}

func TestRenderEscapes(t *testing.T) {
	q := question("k7m2qx", broker.Prompt{
		Question: "@everyone **now** <@123> and @here [x](http://e.example) `code` ||spoiler||",
		Options:  []broker.Option{{Label: "_yes_"}, {Label: "no"}},
	})
	q.Context = "# heading\n> quote"
	m := render(q, at)
	for _, bad := range []string{"@everyone", "@here", "**now**", "<@123>", "[x](", "`code`", "||spoiler||", "\n# heading"} {
		if strings.Contains(m.Content, bad) {
			t.Errorf("content carries live markup %q:\n%s", bad, m.Content)
		}
	}
	for _, want := range []string{"@\u200beveryone", `\*\*now\*\*`, `\<@` + "\u200b" + `123\>`, `\_yes\_`, `> \# heading`, `> \> quote`} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("content lacks escaped %q:\n%s", want, m.Content)
		}
	}
}

func TestRenderFitsContentLimit(t *testing.T) {
	p := dbPrompt()
	p.Question = strings.Repeat("why*", broker.MaxQuestionChars/4)
	q := question("k7m2qx", p)
	q.Context = strings.Repeat("c", broker.MaxContextChars)
	m := render(q, at)
	if n := units(m.Content); n > maxContent {
		t.Fatalf("content is %d characters, Discord allows %d", n, maxContent)
	}
	if !strings.Contains(m.Content, "`/answer k7m2qx 1`") || !strings.Contains(m.Content, "Expires") {
		t.Errorf("shortened content lost the deadline or the hint:\n%s", m.Content)
	}
}

// TestRenderLargestFitsOnce: the largest question the broker accepts
// fits Discord's content once shortened by its excess, without the last
// resort cut: the content still ends with the hint, and says where the
// whole context is.
func TestRenderLargestFitsOnce(t *testing.T) {
	m := render(largestQuestion(), at)
	if n := units(m.Content); n > maxContent {
		t.Fatalf("content is %d characters, Discord allows %d", n, maxContent)
	}
	if !strings.HasSuffix(m.Content, "`/answer k7m2qx.1 1`") || !m.ContextCut || !strings.Contains(m.Content, escape(broker.ContextCutMark)) {
		t.Errorf("the largest question was cut, not shortened (context cut %v):\n%s", m.ContextCut, m.Content)
	}
	q := largestQuestion()
	q.Status, q.Reason, q.ResolvedAt = broker.StatusCancelled, "the agent is gone", fixed.Add(time.Minute)
	m = render(q, at)
	if n := units(m.Content); n > maxContent || !strings.HasSuffix(m.Content, "Cancelled at 14:01 UTC: the agent is gone") {
		t.Errorf("the resolved largest question (%d characters) was cut, not shortened:\n%s", n, m.Content)
	}
}

// TestRenderOneOverTheLimit: a content one character over Discord's
// limit is shortened once, by its excess and the margin the escaped cut
// mark needs, and is not cut.
func TestRenderOneOverTheLimit(t *testing.T) {
	q := question("k7m2qx", dbPrompt())
	q.Context = "c"
	card := broker.BuildCard(q, at)
	_, typed := components(card)
	q.Context = strings.Repeat("c", 1+maxContent+1-units(pendingContent(card, typed)))
	card = broker.BuildCard(q, at)
	if n := units(pendingContent(card, typed)); n != maxContent+1 {
		t.Fatalf("the whole content is %d characters, want %d", n, maxContent+1)
	}
	m := render(q, at)
	if n := units(m.Content); n > maxContent || !m.ContextCut || !strings.HasSuffix(m.Content, "`/answer k7m2qx 1`") {
		t.Errorf("content of %d characters, context cut %v:\n%s", n, m.ContextCut, m.Content)
	}
}

// TestRenderStateAndTitle: the state line is the card's (the expiry
// with its date when it is not today, the other channels the question
// is in), and a dialog is headed by its title and progress.
func TestRenderStateAndTitle(t *testing.T) {
	q := question("k7m2qx", dbPrompt(), broker.Prompt{Question: "Anything else?"})
	q.Targets = []broker.Target{{Channel: Name, Chat: "1"}, {Channel: "web"}, {Channel: "telegram", Chat: "2"}}
	q.Progress = []*broker.Answer{{Selected: []string{"SQLite"}}}
	m := render(q, broker.Viewer{Now: fixed.Add(-24 * time.Hour), Loc: time.UTC, Channel: Name})
	for _, want := range []string{
		"📋 **2 questions, answered one after the other** · 1 of 2 answered\n",
		"Expires Wed 4 Mar 14:30 UTC · default: Database: SQLite · also in telegram, web\n",
		"or type `/answer k7m2qx.2 other <your answer>`",
	} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, m.Content)
		}
	}
}

func TestRenderResolved(t *testing.T) {
	tests := []struct {
		name string
		res  func(q *broker.Question)
		want string
	}{
		{"answered", func(q *broker.Question) {
			q.Status = broker.StatusAnswered
			q.AnsweredBy = &broker.Responder{Channel: Name, User: "1", Name: "ana"}
			q.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
		}, "Answered by ana at 14:02 UTC: SQLite"},
		{"timed out", func(q *broker.Question) { q.Status, q.Fallback = broker.StatusTimedOut, broker.FallbackNone }, "Expired at 14:30 UTC with no answer"},
		{"declined", func(q *broker.Question) {
			q.Status, q.Reason = broker.StatusDeclined, "not *now*"
			q.AnsweredBy = &broker.Responder{Name: "bo"}
		}, `Declined by bo at 14:02 UTC: not \*now\*`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := question("k7m2qx", dbPrompt())
			q.ResolvedAt = fixed.Add(2 * time.Minute)
			tt.res(q)
			m := render(q, at)
			if m.Components == nil || len(m.Components) != 0 {
				t.Errorf("components = %#v, want an empty non-nil list", m.Components)
			}
			if !strings.Contains(m.Content, tt.want) || !strings.Contains(m.Content, "Which database") {
				t.Errorf("content lacks %q and the question:\n%s", tt.want, m.Content)
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	q := question("k7m2qx", dbPrompt(), dbPrompt(), dbPrompt())
	q.Prompts[1].Question, q.Prompts[2].Question = "Which cache?", "Which queue?"
	q.Context = strings.Repeat("context ", 200)
	for b.Loop() {
		render(q, at)
	}
}
