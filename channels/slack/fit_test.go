package slack

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
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
