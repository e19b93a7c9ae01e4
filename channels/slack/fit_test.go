package slack

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// blockTexts returns the mrkdwn text of each block of m by block id.
func blockTexts(t *testing.T, m message) map[string]string {
	t.Helper()
	raw := mustJSON(t, m.blocks)
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, b := range blocks {
		var head struct {
			BlockID string `json:"block_id"`
		}
		_ = json.Unmarshal(b, &head)
		out[head.BlockID] = strings.Join(textObjects(t, b, "mrkdwn"), "\n")
	}
	return out
}

// TestFitShortensTheCardInItsOrder: a block over Slack's 3000 characters
// is fitted by shortening the card, in the card's order and with its
// marks, not by the guard's "…".
func TestFitShortensTheCardInItsOrder(t *testing.T) {
	t.Run("a long context is cut, and nothing else", func(t *testing.T) {
		q := sampleQuestion()
		q.Context = strings.Repeat("x <y> ", broker.MaxContextChars/6)
		q.Prompts[0].Options[0].Description = strings.Repeat("d", broker.MaxDescriptionChar)
		texts := blockTexts(t, questionMessage(testCard(q)))
		ctx := texts[blockID(q.ID, "context")]
		if n := utf8.RuneCountInString(ctx); n > maxContextText || n < maxContextText-5*fitMargin-5 {
			t.Errorf("the context block holds %d characters; want it just within %d", n, maxContextText)
		}
		if !strings.HasSuffix(ctx, broker.ContextCutMark) {
			t.Errorf("the context does not end with the card's mark: …%s", ctx[len(ctx)-60:])
		}
		if opts := texts[blockID(q.ID, 0, "options")]; !strings.Contains(opts, strings.Repeat("d", broker.MaxDescriptionChar)) {
			t.Errorf("a description was cut while the context sufficed:\n%s", opts)
		}
	})
	t.Run("a long context is cut with the mark in the card's language", func(t *testing.T) {
		q := sampleQuestion()
		q.Context = strings.Repeat("x <y> ", broker.MaxContextChars/6)
		for _, locale := range []string{i18n.German, i18n.Pseudo} {
			card := broker.BuildCard(q, broker.Viewer{Now: sampleNow, Loc: time.UTC, Channel: Name, Locale: locale})
			ctx := blockTexts(t, questionMessage(card))[blockID(q.ID, "context")]
			if n := utf8.RuneCountInString(ctx); n > maxContextText || !strings.HasSuffix(ctx, escapeMrkdwn(card.ContextMark())) {
				t.Errorf("%s: the context block holds %d characters, ending …%s; want it within %d with %q", locale, n, ctx[max(len(ctx)-80, 0):], maxContextText, card.ContextMark())
			}
		}
	})
	t.Run("a question escaping makes too long goes after the context", func(t *testing.T) {
		q := sampleQuestion()
		q.Context = "the old box"
		q.Prompts[0].Question = strings.Repeat("<&>", broker.MaxQuestionChars/3)
		texts := blockTexts(t, questionMessage(testCard(q)))
		question := texts[blockID(q.ID, 0, "question")]
		if n := utf8.RuneCountInString(question); n > maxSectionText || !strings.HasSuffix(question, broker.ShortenedMark) {
			t.Errorf("the question block holds %d characters, ending …%s; want it cut by the card", n, question[max(len(question)-40, 0):])
		}
		if ctx := texts[blockID(q.ID, "context")]; ctx != broker.ContextCutMark {
			t.Errorf("the context was not cut first: %q", ctx)
		}
	})
	t.Run("a question that fits is not cut", func(t *testing.T) {
		q := sampleQuestion()
		q.Context = strings.Repeat("c", 2000)
		q.Prompts[0].Question = strings.Repeat("q", broker.MaxQuestionChars)
		texts := blockTexts(t, questionMessage(testCard(q)))
		if texts[blockID(q.ID, "context")] != q.Context || texts[blockID(q.ID, 0, "question")] != q.Prompts[0].Question {
			t.Errorf("a question within Slack's limits was shortened")
		}
	})
}

func TestCutEscapedNeverSplitsAnEntity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abcdef", 10, "abcdef"},
		{"abcdef", 4, "abc…"},
		{"ab&amp;cd", 5, "ab…"},
		{"ab&amp;cd", 8, "ab&amp;…"},
		{"&lt;&gt;", 6, "&lt;…"},
	} {
		if got := cutEscaped(tc.in, tc.n); got != tc.want {
			t.Errorf("cutEscaped(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// FuzzRenderFits holds a question's message to Slack's limits whatever
// its texts: every text block within 3000 characters, no markup left
// live, no entity cut in two, and the buttons' values within
// broker.MaxStepData.
func FuzzRenderFits(f *testing.F) {
	f.Add("context & <more>", "Which database?", "reliable", "an answer", uint8(1))
	f.Add(strings.Repeat("<&>", 1300), strings.Repeat("&", 2000), strings.Repeat("<", 300), strings.Repeat(">", 4000), uint8(4))
	entity := regexp.MustCompile(`&(amp|lt|gt);`)
	f.Fuzz(func(t *testing.T, ctx, question, desc, answer string, prompts uint8) {
		q := sampleQuestion()
		q.Context = limit(ctx, broker.MaxContextChars)
		p := q.Prompts[0]
		p.Question = limit(question, broker.MaxQuestionChars)
		p.Options[1].Description = limit(desc, broker.MaxDescriptionChar)
		q.Prompts = nil
		for range int(prompts)%broker.MaxPrompts + 1 {
			q.Prompts = append(q.Prompts, p)
		}
		if len(q.Prompts) > 1 {
			q.Progress = []*broker.Answer{{CustomText: answer}}
		}
		for _, m := range []message{questionMessage(testCard(q)), outcomeMessage(testCard(resolved(q)))} {
			raw := mustJSON(t, m.blocks)
			if len(m.blocks) > maxBlocks {
				t.Fatalf("%d blocks", len(m.blocks))
			}
			for _, s := range textObjects(t, raw, "mrkdwn") {
				if n := utf8.RuneCountInString(s); n > maxSectionText {
					t.Fatalf("a text block of %d characters", n)
				}
				if strings.ContainsAny(s, "<>") {
					t.Fatalf("live markup in %q", s)
				}
				if rest := entity.ReplaceAllString(s, ""); strings.Contains(rest, "&") {
					t.Fatalf("an entity cut in two in %q", s)
				}
			}
			for _, b := range buttonValues(t, raw) {
				if len(b) > broker.MaxStepData {
					t.Fatalf("button value %q", b)
				}
			}
		}
	})
}

// buttonValues reads the buttons' values out of blocks JSON.
func buttonValues(t *testing.T, raw []byte) []string {
	t.Helper()
	var blocks []struct {
		Elements []struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range blocks {
		for _, el := range b.Elements {
			if el.Type == "button" {
				out = append(out, el.Value)
			}
		}
	}
	return out
}
