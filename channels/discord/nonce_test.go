package discord

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

func TestCopyNonce(t *testing.T) {
	a := copyNonce("abc234", "123456789012345678")
	if len(a) > maxNonce || !strings.HasPrefix(a, "qabc234.") {
		t.Errorf("nonce %q: want at most %d characters starting with the question id", a, maxNonce)
	}
	if b := copyNonce("abc234", "123456789012345678"); b != a {
		t.Errorf("the same copy got nonces %q and %q", a, b)
	}
	for _, other := range []string{copyNonce("abc235", "123456789012345678"), copyNonce("abc234", "123456789012345679"), copyNonce("abc234", "user:1")} {
		if other == a {
			t.Errorf("another question or chat got the same nonce %q", a)
		}
	}
}

// TestPostSendsEnforcedNonce checks the body Discord receives: the copy's
// nonce with enforce_nonce beside the message itself.
func TestPostSendsEnforcedNonce(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("nonce2", dbPrompt())
	m, ref := e.post(t, q)
	if m.Nonce != copyNonce(q.ID, e.chat) || ref.MessageID != m.ID {
		t.Fatalf("message %s has nonce %q, reference %s; want nonce %q", m.ID, m.Nonce, ref.MessageID, copyNonce(q.ID, e.chat))
	}
	reqs := e.fake.Requests()
	var body map[string]any
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["nonce"] != m.Nonce || body["enforce_nonce"] != true || body["content"] == "" || body["components"] == nil {
		t.Errorf("request body = %v; want the message with its nonce enforced", body)
	}
}

// TestPostSentAgainReturnsTheSameMessage: a post whose answer was lost is
// sent again with the same nonce, and Discord returns the message already
// created instead of creating another.
func TestPostSentAgainReturnsTheSameMessage(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("again2", dbPrompt())
	e.fake.LoseAnswers(1)
	if _, err := e.ch.Post(testCtx(t), q, e.chat); err == nil || errors.Is(err, broker.ErrPermanent) {
		t.Fatalf("Post with its answer lost: %v; want a failure a retry may fix", err)
	}
	ref, err := e.ch.Post(testCtx(t), q, e.chat)
	if err != nil {
		t.Fatal(err)
	}
	msgs := e.fake.Messages(e.chat)
	if len(msgs) != 1 || msgs[0].ID != ref.MessageID {
		t.Fatalf("channel holds %d messages, reference %s; want the one message created by the first post", len(msgs), ref.MessageID)
	}
	// Another question's copy is a message of its own.
	if _, err := e.ch.Post(testCtx(t), question("other2", dbPrompt()), e.chat); err != nil {
		t.Fatal(err)
	}
	if n := len(e.fake.Messages(e.chat)); n != 2 {
		t.Errorf("channel holds %d messages after a second question; want 2", n)
	}
}

// TestLostPostAnswerLeavesOneCopy runs the broker's outbox: the first
// post's answer is lost, the outbox tries again, and the channel ends
// with one copy, which the resolution edits.
func TestLostPostAnswerLeavesOneCopy(t *testing.T) {
	w := newWorld(t, nil)
	channeltest.RunOutbox(t, w.b)
	w.fake.LoseAnswers(1)
	ctx := testCtx(t)
	q, _, err := w.b.Ask(ctx, "agent", dbRequest())
	if err != nil || q.Status != broker.StatusPending {
		t.Fatalf("Ask: %v, %+v", err, q)
	}
	var copies []broker.Copy
	err = discordfake.Until(ctx, func() bool {
		copies, err = w.b.Copies(ctx, q.ID)
		return err == nil && len(copies) == 1 && copies[0].State == broker.CopyPosted
	})
	if err != nil {
		t.Fatalf("the copy was never posted: %+v\n%s", copies, w.logs.String())
	}
	msgs := w.fake.Messages(w.chat)
	if len(msgs) != 1 || msgs[0].ID != copies[0].MessageID {
		t.Fatalf("channel holds %d messages, copy %s; want one, the recorded copy", len(msgs), copies[0].MessageID)
	}
	if copies[0].Attempts < 2 {
		t.Errorf("copy took %d attempts; want the lost one and the one that found it", copies[0].Attempts)
	}
	if _, err := w.b.Cancel(ctx, "agent", q.ID, "not needed"); err != nil {
		t.Fatal(err)
	}
	w.edited(t, msgs[0].ID, "not needed")
}
