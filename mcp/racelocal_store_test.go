package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// raceTaskServer is a server of br's builder that races questions
// locally.
func raceTaskServer(t *testing.T, br *taskBridge) *mcp.Server {
	t.Helper()
	s, err := mcp.New(mcp.Config{Asker: mcp.Fixed(br.api(keyBuilder)), SessionID: "s1", ProgressEvery: 100 * time.Millisecond,
		PollWait: time.Second, RaceLocal: true, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// editedCopy waits until a copy of question id is edited closed and
// returns that edit.
func editedCopy(t *testing.T, ch *brokertest.Channel, id string) *broker.Question {
	t.Helper()
	var last *broker.Question
	if !ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool {
		for _, u := range c.Updates() {
			if u.ID == id && u.Status != broker.StatusPending {
				last = u
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no copy of %s was edited closed", id)
	}
	return last
}

// An answer given in the local form is the question's answer in the
// bridge, on either store: answered by the terminal with the form's
// values, the chat copy edited to say so, the audit trail recording it,
// and the agent getting it; a late chat answer is refused.
func TestRaceLocalAnswerRecorded(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			cs, _ := connectLocal(t, raceTaskServer(t, br), "", func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Port 9090", "q2": 3}}, nil
			})
			res, o := resultOf(t, callAsk(cs, portAndRegion))
			if o.Status != client.StatusAnswered || o.AnsweredBy == nil || o.AnsweredBy.Channel != "terminal" || o.AnsweredBy.User != "claude-code" {
				t.Fatalf("the agent got %s by %+v: %s", o.Status, o.AnsweredBy, textOf(res))
			}

			api := br.api(keyBuilder)
			q, err := api.Get(context.Background(), o.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			if q.Status != client.StatusAnswered || q.Reason != mcp.ReasonAnsweredLocally || q.AnsweredBy == nil ||
				q.AnsweredBy.Channel != "terminal" || q.AnsweredBy.User != "claude-code" || q.AnsweredBy.Name != "someone at the terminal" {
				t.Fatalf("the bridge has %s %q by %+v, want answered at the terminal", q.Status, q.Reason, q.AnsweredBy)
			}
			port, replicas := q.Answers["Which port?"], q.Answers["How many replicas?"]
			if len(port.Selected) != 1 || port.Selected[0] != "Port 9090" || port.Action != "end_turn" || port.AnsweredBy == nil || port.AnsweredBy.Channel != "terminal" {
				t.Errorf("the bridge's port answer %+v", port)
			}
			if string(replicas.Value) != "3" || replicas.CustomText != "3" {
				t.Errorf("the bridge's replicas answer %+v", replicas)
			}

			edit := editedCopy(t, br.ch, o.ID)
			if text := broker.OutcomeText(edit, time.UTC); edit.Status != broker.StatusAnswered ||
				!strings.HasPrefix(text, "Answered by someone at the terminal at ") || !strings.Contains(text, "Port 9090") {
				t.Errorf("the chat copy reads %q (%s)", text, edit.Status)
			}
			trail, err := api.Audit(context.Background(), o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if last := trail[len(trail)-1]; last.Kind != "resolved" || last.Status != client.StatusAnswered {
				t.Errorf("the audit trail ends with %+v, want the answer", last)
			}
			reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: "/answer " + o.ID + ".1 1"})
			if reply.OK {
				t.Errorf("a chat answer after the terminal's was taken: %s", reply.Text)
			}
		})
	}
}

// The bridge refuses an answer at the terminal that does not fit the
// question, naming the problem, and the question stays pending.
func TestAnswerAtTerminalRefused(t *testing.T) {
	br := startTaskBridge(t, "sqlite")
	api := br.api(keyBuilder)
	ctx := context.Background()
	asked, err := api.Submit(ctx, client.Question{Prompts: []client.Prompt{{Question: "Which port?", Options: []client.Option{{Label: "Port 8080"}, {Label: "Port 9090"}}, Other: new(false)}}, Wait: "0s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		answers map[string]client.Answer
		want    string
	}{
		{map[string]client.Answer{}, `answers["Which port?"]: missing`},
		{map[string]client.Answer{"Which port?": {Selected: []string{"7070"}}}, `"7070" is not an option`},
		{map[string]client.Answer{"Which port?": {CustomText: "any"}}, "takes only its options"},
		{map[string]client.Answer{"Which port?": {Selected: []string{"Port 8080"}}, "Which host?": {CustomText: "a"}}, "no prompt with that text"},
	} {
		_, err := api.AnswerAtTerminal(ctx, asked.ID, "claude-code", tc.answers)
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, tc.want) {
			t.Errorf("answers %v: %v, want a 400 containing %q", tc.answers, err, tc.want)
		}
	}
	if q, _ := api.Get(ctx, asked.ID, 0); q.Status != client.StatusPending {
		t.Fatalf("after refused answers the question is %s", q.Status)
	}
	for _, tc := range []struct {
		q       client.Question
		answers map[string]client.Answer
		want    string
	}{
		{client.Question{Prompts: []client.Prompt{{Question: "How many replicas?", Field: &client.Field{Type: client.FieldInteger, Minimum: new(1.0), Maximum: new(9.0)}}}},
			map[string]client.Answer{"How many replicas?": {Value: json.RawMessage("12")}}, "value: 12 is not an answer of the field's type integer"},
		{client.Question{Prompts: []client.Prompt{{Question: "Ship it?"}}, Route: "guarded"},
			map[string]client.Answer{"Ship it?": {CustomText: "yes"}}, "the question's policy needs its answer from people in chat"},
	} {
		tc.q.Wait = "0s"
		other, err := api.Submit(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		_, err = api.AnswerAtTerminal(ctx, other.ID, "claude-code", tc.answers)
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, tc.want) {
			t.Errorf("%s: %v, want a 400 containing %q", tc.q.Prompts[0].Question, err, tc.want)
		}
		if q, _ := api.Get(ctx, other.ID, 0); q.Status != client.StatusPending {
			t.Errorf("%s: after a refused answer the question is %s", tc.q.Prompts[0].Question, q.Status)
		}
	}
	if _, err := br.api(keyReviewer).AnswerAtTerminal(ctx, asked.ID, "x", map[string]client.Answer{"Which port?": {Selected: []string{"Port 8080"}}}); err == nil {
		t.Fatal("another agent answered the question")
	}
	if _, err := api.Cancel(ctx, asked.ID, ""); err != nil {
		t.Fatal(err)
	}
	_, err = api.AnswerAtTerminal(ctx, asked.ID, "claude-code", map[string]client.Answer{"Which port?": {Selected: []string{"Port 8080"}}})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 409 {
		t.Fatalf("an answer to a cancelled question: %v, want 409", err)
	}
}
