package discord

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestPostInThread: an agent's reply is a reply to the question's
// message, escaped and mentioning nobody; a reply longer than one
// message goes as several, in order, each within Discord's limit, which
// read back as the whole text.
func TestPostInThread(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("k7m2qx", dbPrompt())
	_, ref := e.post(t, q)
	if err := e.ch.PostInThread(testCtx(t), q, ref, "Use **bold** @everyone <#1>"); err != nil {
		t.Fatal(err)
	}
	msgs := e.fake.Messages(e.chat)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the question and the reply", len(msgs))
	}
	r := msgs[1]
	if r.Reference == nil || r.Reference.MessageID != ref.MessageID || r.Content != escape("Use **bold** @everyone <#1>") {
		t.Fatalf("reply %q referencing %+v", r.Content, r.Reference)
	}
	assertNoMentions(t, r)

	long := strings.Repeat("line of text_with*marks\n", 160) // 3840 characters, more once escaped
	if err := e.ch.PostInThread(testCtx(t), q, ref, long); err != nil {
		t.Fatal(err)
	}
	parts := e.fake.Messages(e.chat)[2:]
	if len(parts) < 2 {
		t.Fatalf("%d messages for a reply of %d escaped characters, want several", len(parts), utf8.RuneCountInString(escape(long)))
	}
	var whole strings.Builder
	for _, p := range parts {
		if units(p.Content) > maxContent || p.Reference == nil || p.Reference.MessageID != ref.MessageID {
			t.Fatalf("part of %d units referencing %+v", units(p.Content), p.Reference)
		}
		whole.WriteString(p.Content)
	}
	if whole.String() != escape(long) {
		t.Fatalf("the parts do not read back as the reply")
	}
	if !strings.HasSuffix(parts[0].Content, "\n") {
		t.Errorf("the first part ends mid-line: %q", parts[0].Content[len(parts[0].Content)-20:])
	}
	if err := e.ch.PostInThread(testCtx(t), q, broker.MessageRef{Channel: Name, Chat: e.chat}, "hi"); !errors.Is(err, broker.ErrPermanent) {
		t.Fatalf("a copy naming no message: %v, want a permanent failure", err)
	}
}

// TestEscapedParts: splitting never cuts an escape, and keeps every
// part within the limit.
func TestEscapedParts(t *testing.T) {
	for _, tc := range []struct {
		s   string
		max int
	}{{"abc", 10}, {"a*b*c*d*e", 4}, {"ab\ncd\nef", 4}, {"🙂🙂🙂", 4}, {strings.Repeat("_", 9), 5}} {
		parts := escapedParts(tc.s, tc.max)
		if strings.Join(parts, "") != escape(tc.s) {
			t.Errorf("%q in %d: %q do not read back as %q", tc.s, tc.max, parts, escape(tc.s))
		}
		for _, p := range parts {
			if units(p) > tc.max || strings.HasSuffix(p, `\`) {
				t.Errorf("%q in %d: part %q", tc.s, tc.max, p)
			}
		}
	}
}
