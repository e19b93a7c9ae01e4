package slack

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// textObjects collects the text of every text object of type typ
// ("mrkdwn", "plain_text") in blocks JSON.
func textObjects(t *testing.T, raw json.RawMessage, typ string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("blocks are not JSON: %v", err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["type"] == typ {
				if s, ok := x["text"].(string); ok {
					out = append(out, s)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

func postOne(t *testing.T, e *testEnv, q *broker.Question, chat string) slackfake.Message {
	t.Helper()
	ref, err := e.ch.Post(context.Background(), q, chat)
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	ch, ts := locate(ref)
	m, ok := e.fake.Message(ch, ts)
	if !ok {
		t.Fatalf("the fake has no message %s in %s", ts, ch)
	}
	return m
}

// sends is what tapping a button with value sends: the command of its
// step, or "opens <kind>" for a step that only opens a box.
func sends(t *testing.T, value string) string {
	t.Helper()
	s, err := broker.DecodeStep(value)
	if err != nil {
		t.Fatalf("button value %q: %v", value, err)
	}
	if cmd, ok := s.Command(""); ok {
		return cmd
	}
	return "opens " + string(s.Kind)
}

func TestPostRendersButtonsWithSteps(t *testing.T) {
	dialog := sampleQuestion()
	dialog.Prompts = append(dialog.Prompts, broker.Prompt{Question: "Which cache?", Header: "Cache",
		Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}, Other: boolp(false)})
	noOther := sampleQuestion()
	noOther.Prompts[0].Other = boolp(false)
	freeText := sampleQuestion()
	freeText.Prompts[0].Options = nil
	other := "opens " + string(broker.StepOther)

	type button struct{ Text, Sends, Style string }
	tests := []struct {
		name     string
		q        *broker.Question
		buttons  []button
		inText   []string
		inBlocks []string
	}{
		{
			name: "single prompt",
			q:    sampleQuestion(),
			buttons: []button{
				{Text: "Postgres (Recommended)", Sends: "/answer k7m2qx 1", Style: "primary"},
				{Text: "SQLite", Sends: "/answer k7m2qx 2"},
				{Text: "Other or note…", Sends: other},
				{Text: "Skip", Sends: "/answer k7m2qx skip"},
				{Text: "Not ready", Sends: "/discuss k7m2qx"},
				{Text: "Decline", Sends: "/decline k7m2qx"},
			},
			inText: []string{"Reply: /answer k7m2qx 1", "/answer k7m2qx other &lt;text&gt;", "/answer k7m2qx 1 other &lt;note&gt;",
				"Not ready: /discuss k7m2qx [message]", "Decline: /decline k7m2qx [reason]", "Which database?", "Expires 14:30 UTC · default: SQLite"},
			inBlocks: []string{"*DB*", "Which database?", "*1.* Postgres (Recommended) — reliable", "*2.* SQLite — embedded",
				"_" + broker.RecommendedHint + "_", "Expires 14:30 UTC · default: SQLite  ·  question k7m2qx"},
		},
		{
			name: "other not allowed",
			q:    noOther,
			buttons: []button{
				{Text: "Postgres (Recommended)", Sends: "/answer k7m2qx 1", Style: "primary"},
				{Text: "SQLite", Sends: "/answer k7m2qx 2"},
				{Text: "Skip", Sends: "/answer k7m2qx skip"},
				{Text: "Not ready", Sends: "/discuss k7m2qx"},
				{Text: "Decline", Sends: "/decline k7m2qx"},
			},
		},
		{
			name: "free text only",
			q:    freeText,
			buttons: []button{{Text: "Answer…", Sends: other}, {Text: "Skip", Sends: "/answer k7m2qx skip"},
				{Text: "Not ready", Sends: "/discuss k7m2qx"}, {Text: "Decline", Sends: "/decline k7m2qx"}},
			inText:   []string{"Reply: /answer k7m2qx other &lt;your answer&gt;"},
			inBlocks: []string{"_Answer in your own words_"},
		},
		{
			name: "dialog of two prompts",
			q:    dialog,
			buttons: []button{
				{Text: "Postgres (Recommended)", Sends: "/answer k7m2qx.1 1", Style: "primary"},
				{Text: "SQLite", Sends: "/answer k7m2qx.1 2"},
				{Text: "Other or note…", Sends: other},
				{Text: "Skip", Sends: "/answer k7m2qx.1 skip"},
				{Text: "Redis", Sends: "/answer k7m2qx.2 1"},
				{Text: "None", Sends: "/answer k7m2qx.2 2"},
				{Text: "Skip", Sends: "/answer k7m2qx.2 skip"},
				{Text: "Not ready", Sends: "/discuss k7m2qx"},
				{Text: "Decline", Sends: "/decline k7m2qx"},
			},
			inBlocks: []string{"Question 1 of 2", "Question 2 of 2", "*Cache*"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, ModeSocket, &brokertest.Inbox{})
			e.ch.now = func() time.Time { return sampleNow }
			m := postOne(t, e, tt.q, general)
			got := m.Buttons()
			if len(got) != len(tt.buttons) {
				t.Fatalf("buttons = %+v, want %d buttons", got, len(tt.buttons))
			}
			for i, w := range tt.buttons {
				g := got[i]
				if g.Text != w.Text || g.Style != w.Style || sends(t, g.Value) != w.Sends {
					t.Errorf("button %d = %q sends %q style %q, want %q sending %q style %q", i, g.Text, sends(t, g.Value), g.Style, w.Text, w.Sends, w.Style)
				}
			}
			for _, s := range tt.inText {
				if !strings.Contains(m.Text, s) {
					t.Errorf("fallback text %q lacks %q", m.Text, s)
				}
			}
			all := strings.Join(textObjects(t, m.Blocks, "mrkdwn"), "\n")
			for _, s := range tt.inBlocks {
				if !strings.Contains(all, s) {
					t.Errorf("blocks text lacks %q:\n%s", s, all)
				}
			}
		})
	}
}

// TestStateLineFromTheCard: the line under a question is the card's
// state line as the channel's readers see it: the expiry's date when it
// is not today, a snooze's policy button, and the other channels the
// question went to.
func TestStateLineFromTheCard(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	e.ch.now = func() time.Time { return sampleNow.Add(-24 * time.Hour) }
	q := sampleQuestion()
	q.Targets = append(q.Targets, broker.Target{Channel: "telegram", Chat: "1"}, broker.Target{Channel: "web"})
	q.Policy.Snooze = &broker.SnoozePolicy{}
	m := postOne(t, e, q, general)
	want := "Expires Sun 29 Nov 14:30 UTC · default: SQLite · also in telegram, web"
	if all := strings.Join(textObjects(t, m.Blocks, "mrkdwn"), "\n"); !strings.Contains(all, want) {
		t.Errorf("blocks text lacks %q:\n%s", want, all)
	}
	if !strings.Contains(m.Text, want) || !strings.Contains(m.Text, "Snooze: /snooze k7m2qx") {
		t.Errorf("fallback text lacks the state line or the Snooze command:\n%s", m.Text)
	}
	if b, ok := m.Button("Snooze"); !ok || sends(t, b.Value) != "/snooze k7m2qx" {
		t.Errorf("Snooze button %+v", b)
	}
}

func TestPostMultiSelectHasCheckboxesAndSubmit(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	q := sampleQuestion()
	q.Prompts[0].MultiSelect = true
	q.Selections = map[int][]int{0: {1}} // ticked on another platform
	m := postOne(t, e, q, general)
	type option struct {
		Text  struct{ Text string } `json:"text"`
		Value string                `json:"value"`
	}
	var blocks []struct {
		Type     string `json:"type"`
		Elements []struct {
			Type    string   `json:"type"`
			Options []option `json:"options"`
			Initial []option `json:"initial_options"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(m.Blocks, &blocks); err != nil {
		t.Fatal(err)
	}
	var labels, ticked []string
	for _, b := range blocks {
		for _, el := range b.Elements {
			if el.Type == "checkboxes" {
				for _, o := range el.Options {
					labels = append(labels, o.Text.Text+"="+o.Value)
				}
				for _, o := range el.Initial {
					ticked = append(ticked, o.Text.Text+"="+o.Value)
				}
			}
		}
	}
	if strings.Join(labels, ",") != "Postgres (Recommended)=0,SQLite=1" {
		t.Errorf("checkboxes = %v", labels)
	}
	if strings.Join(ticked, ",") != "SQLite=1" {
		t.Errorf("ticked checkboxes = %v, want the question's selection, SQLite=1", ticked)
	}
	if b, ok := m.Button("Submit"); !ok || b.Style != "primary" {
		t.Errorf("no primary Submit button: %+v", m.Buttons())
	}
	if all := strings.Join(textObjects(t, m.Blocks, "mrkdwn"), "\n"); !strings.Contains(all, "_Choose one or more; you can add a note_") {
		t.Errorf("the blocks do not say what the prompt takes:\n%s", all)
	}
	if _, ok := m.Button("SQLite"); ok {
		t.Errorf("multi-select renders option buttons: %+v", m.Buttons())
	}
}

func TestAgentTextIsInert(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	hostile := "<!here> & <!channel> ping <@U123> see <http://evil.example|docs> *bold*"
	q := sampleQuestion()
	q.Context = hostile
	q.Prompts[0].Question = hostile
	q.Prompts[0].Header = "<!here>"
	q.Prompts[0].Options[1].Description = hostile
	m := postOne(t, e, q, general)
	mrk := textObjects(t, m.Blocks, "mrkdwn")
	for _, s := range append(mrk, m.Text) {
		for _, bad := range []string{"<!here>", "<!channel>", "<@U123>", "<http://evil.example|docs>"} {
			if strings.Contains(s, bad) {
				t.Errorf("live markup %q reached Slack in %q", bad, s)
			}
		}
	}
	joined := strings.Join(mrk, "\n")
	for _, want := range []string{"&lt;!here&gt; &amp; &lt;!channel&gt;", "&lt;@U123&gt;", "&lt;http://evil.example|docs&gt;"} {
		if !strings.Contains(joined, want) {
			t.Errorf("escaped text %q missing from blocks:\n%s", want, joined)
		}
	}
	if !strings.Contains(m.Text, "&lt;!here&gt;") {
		t.Errorf("fallback text not escaped: %q", m.Text)
	}
	if !strings.Contains(string(m.Blocks), `"verbatim":true`) {
		t.Errorf("mrkdwn text is not verbatim (Slack would link-ify names)")
	}
}

func TestRenderRespectsSlackLimits(t *testing.T) {
	long := strings.Repeat("<&>", 700) // escapes to 9 characters per 3
	q := sampleQuestion()
	q.Context = strings.Repeat("c&", 2000)
	q.Prompts = nil
	for i := range broker.MaxPrompts {
		q.Prompts = append(q.Prompts, broker.Prompt{
			Question: long, Header: "H", MultiSelect: i%2 == 1,
			Options: []broker.Option{
				{Label: strings.Repeat("L", 60), Description: strings.Repeat("d", 300)},
				{Label: "B"}, {Label: "C"}, {Label: "D"},
			},
		})
	}
	for _, tc := range []struct {
		name   string
		blocks []any
	}{
		{"pending", toAny(questionMessage(testCard(q)).blocks)},
		{"resolved", toAny(outcomeMessage(testCard(resolved(q))).blocks)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := mustJSON(t, tc.blocks)
			var blocks []map[string]any
			if err := json.Unmarshal(raw, &blocks); err != nil {
				t.Fatal(err)
			}
			if len(blocks) > maxBlocks {
				t.Errorf("%d blocks, Slack allows %d", len(blocks), maxBlocks)
			}
			ids := map[string]bool{}
			for _, b := range blocks {
				id, _ := b["block_id"].(string)
				if ids[id] {
					t.Errorf("block_id %q repeats", id)
				}
				ids[id] = true
				els, _ := b["elements"].([]any)
				if b["type"] == "actions" && len(els) > maxActionsElems {
					t.Errorf("actions block with %d elements", len(els))
				}
				actions := map[string]bool{}
				for _, el := range els {
					m := el.(map[string]any)
					if a, ok := m["action_id"].(string); ok {
						if actions[a] {
							t.Errorf("action_id %q repeats in block %s", a, id)
						}
						actions[a] = true
					}
					if m["type"] == "button" {
						txt := m["text"].(map[string]any)["text"].(string)
						val, _ := m["value"].(string)
						if utf8.RuneCountInString(txt) > maxButtonText || len(val) > maxButtonValue {
							t.Errorf("button %q value length %d over the limits", txt, len(val))
						}
					}
				}
			}
			for _, s := range textObjects(t, raw, "mrkdwn") {
				if utf8.RuneCountInString(s) > maxSectionText {
					t.Errorf("text of %d characters", utf8.RuneCountInString(s))
				}
				if strings.Contains(s, "<") {
					t.Errorf("unescaped < in %q", s[:40])
				}
			}
		})
	}
}

func BenchmarkQuestionBlocks(b *testing.B) {
	q := sampleQuestion()
	q.Context = strings.Repeat("some context & <details> ", 40)
	for b.Loop() {
		if m := questionMessage(testCard(q)); len(m.blocks) == 0 || m.text == "" {
			b.Fatal("no blocks")
		}
	}
}
