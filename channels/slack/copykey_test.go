package slack

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
)

// TestCopyCarriesMetadata: a posted copy carries the question id and its
// target as message metadata, and FindCopy finds it by them, in a
// channel and in a person's DM, and nothing for another question.
func TestCopyCarriesMetadata(t *testing.T) {
	e := newEnv(t, ModeSocket, nopHandler{})
	ctx := context.Background()
	q := sampleQuestion()
	for _, chat := range []string{general, ana.ID} {
		t.Run(chat, func(t *testing.T) {
			if _, ok, err := e.ch.FindCopy(ctx, q, chat); err != nil || ok {
				t.Fatalf("FindCopy before the post = %v, %v; want none", ok, err)
			}
			ref, err := e.ch.Post(ctx, q, chat)
			if err != nil {
				t.Fatal(err)
			}
			msgs := e.fake.Messages()
			var md struct {
				EventType    string            `json:"event_type"`
				EventPayload map[string]string `json:"event_payload"`
			}
			if err := json.Unmarshal(msgs[len(msgs)-1].Metadata, &md); err != nil {
				t.Fatalf("metadata %s: %v", msgs[len(msgs)-1].Metadata, err)
			}
			if md.EventType != copyEventType || md.EventPayload["question_id"] != q.ID || md.EventPayload["target"] != chat {
				t.Errorf("metadata = %+v; want the question id and target", md)
			}
			got, ok, err := e.ch.FindCopy(ctx, q, chat)
			if err != nil || !ok || got.MessageID != ref.MessageID || got.Chat != ref.Chat {
				t.Errorf("FindCopy = %+v, %v, %v; want %+v", got, ok, err, ref)
			}
			other := sampleQuestion()
			other.ID = "zzzz22"
			if _, ok, err := e.ch.FindCopy(ctx, other, chat); err != nil || ok {
				t.Errorf("FindCopy of another question = %v, %v; want none", ok, err)
			}
		})
	}
}

// TestFindCopyPagesAndFails: the copy is found past the first page of
// history; a refusal Slack will repeat (missing_scope) is permanent.
func TestFindCopyPagesAndFails(t *testing.T) {
	e := newEnv(t, ModeSocket, nopHandler{})
	ctx := context.Background()
	q := sampleQuestion()
	ref, err := e.ch.Post(ctx, q, general)
	if err != nil {
		t.Fatal(err)
	}
	other := sampleQuestion()
	for i := range findPageSize + 5 {
		other.ID = "zz" + string(rune('a'+i%20)) + "222"
		if _, err := e.ch.Post(ctx, other, general); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := e.ch.FindCopy(ctx, q, general)
	if err != nil || !ok || got.MessageID != ref.MessageID {
		t.Errorf("FindCopy past the first page = %+v, %v, %v; want %s", got, ok, err, ref.MessageID)
	}
	e.fake.FailMethod("conversations.history", "missing_scope")
	if _, _, err := e.ch.FindCopy(ctx, q, general); !errors.Is(err, broker.ErrPermanent) {
		t.Errorf("FindCopy without the history scope: %v; want a permanent failure", err)
	}
}

// TestLostPostAnswerLeavesOneCopy runs the broker's outbox against the
// fake: Slack takes the first post but its answer is lost, so the outbox
// tries again, finds the copy by its metadata instead of posting a
// second one, and the resolution edits that copy.
func TestLostPostAnswerLeavesOneCopy(t *testing.T) {
	for _, chat := range []string{general, ana.ID} {
		t.Run(chat, func(t *testing.T) {
			e := newBrokerEnv(t, broker.Route{Targets: []broker.Target{{Channel: Name, Chat: chat}}})
			channeltest.RunOutbox(t, e.b)
			e.fake.LoseAnswers("chat.postMessage", 1)
			ctx := context.Background()
			q, _, err := e.b.Ask(ctx, "agent", &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
			if err != nil || q.Status != broker.StatusPending {
				t.Fatalf("Ask: %v, %+v", err, q)
			}
			var copies []broker.Copy
			waitFake(t, e.fake, "the copy recorded as posted", func() bool {
				copies, err = e.b.Copies(ctx, q.ID)
				return err == nil && len(copies) == 1 && copies[0].State == broker.CopyPosted
			})
			msgs := e.fake.Messages()
			if len(msgs) != 1 || messageID(msgs[0].Channel, msgs[0].TS) != copies[0].MessageID {
				t.Fatalf("Slack holds %d messages, copy %s; want one, the recorded copy", len(msgs), copies[0].MessageID)
			}
			if n := e.fake.Calls("chat.postMessage"); n != 1 {
				t.Errorf("chat.postMessage called %d times; want 1", n)
			}
			if e.fake.Calls("conversations.history") == 0 {
				t.Error("the copy was recorded without looking it up")
			}
			if _, err := e.b.Cancel(ctx, "agent", q.ID, "not needed"); err != nil {
				t.Fatal(err)
			}
			e.copyShows(t, msgs[0], "not needed")
		})
	}
}

// TestFirstPostLooksNothingUp: a post whose earlier outcome is known
// costs no history call.
func TestFirstPostLooksNothingUp(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	e.ask(t, nil)
	if n := e.fake.Calls("conversations.history"); n != 0 {
		t.Errorf("conversations.history called %d times for a first post; want 0", n)
	}
}

// nopHandler takes no action: these tests only post.
type nopHandler struct{}

func (nopHandler) HandleInbound(context.Context, broker.Inbound) broker.Reply { return broker.Reply{} }
