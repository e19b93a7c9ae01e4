package slack

import (
	"context"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestPostInThread: an agent's reply goes into the thread of the copy,
// in a channel and in a DM, with mrkdwn escaped so that it cannot
// mention anyone; a copy Slack refuses, or one naming no message, is a
// permanent failure.
func TestPostInThread(t *testing.T) {
	e := newEnv(t, ModeHTTP, nopHandler{})
	ctx := context.Background()
	q := sampleQuestion()
	for _, chat := range []string{general, ana.ID} {
		t.Run(chat, func(t *testing.T) {
			ref, err := e.ch.Post(ctx, q, chat)
			if err != nil {
				t.Fatal(err)
			}
			before := len(e.fake.Messages())
			if err := e.ch.PostInThread(ctx, q, ref, "Use <!here> & run \"make\"\nthen wait"); err != nil {
				t.Fatal(err)
			}
			msgs := e.fake.Messages()
			if len(msgs) != before+1 {
				t.Fatalf("%d messages posted, want 1", len(msgs)-before)
			}
			ch, ts := locate(ref)
			got := msgs[len(msgs)-1]
			if got.Channel != ch || got.ThreadTS != ts || got.Text != "Use &lt;!here&gt; &amp; run \"make\"\nthen wait" {
				t.Fatalf("posted %+v, want the escaped reply in the thread %s of %s", got, ts, ch)
			}
		})
	}
	ref, err := e.ch.Post(ctx, q, random)
	if err != nil {
		t.Fatal(err)
	}
	e.fake.FailChannel(random, "channel_not_found")
	if err := e.ch.PostInThread(ctx, q, ref, "hello"); !errorsIsPermanent(err) {
		t.Fatalf("a reply Slack refuses: %v, want a permanent failure", err)
	}
	calls := e.fake.Calls("chat.postMessage")
	if err := e.ch.PostInThread(ctx, q, broker.MessageRef{Channel: Name, Chat: general}, "hello"); !errorsIsPermanent(err) {
		t.Fatalf("a copy naming no message: %v, want a permanent failure", err)
	}
	if n := e.fake.Calls("chat.postMessage"); n != calls {
		t.Fatalf("a copy naming no message made %d calls", n-calls)
	}
}
