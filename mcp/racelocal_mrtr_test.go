package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// On 2026-07-28 the local form goes in ask_user's result as an input
// request (SEP-2322), and the SDK's client shows it and calls again with
// the response: accepted, it is the question's answer, given at the
// terminal, on either store.
func TestRaceLocalInputRequest(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			var forms []*sdk.ElicitParams
			cs, _ := connectLocal(t, raceTaskServer(t, br), "2026-07-28", func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				forms = append(forms, req.Params)
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Port 9090", "q2": 3}}, nil
			})
			res, o := resultOf(t, callAsk(cs, portAndRegion))
			if o.Status != client.StatusAnswered || o.AnsweredBy == nil || o.AnsweredBy.Channel != "terminal" || o.AnsweredBy.User != "claude-code" ||
				o.Answers["Which port?"].Selected[0] != "Port 9090" {
				t.Fatalf("outcome %+v: %s", o, textOf(res))
			}
			if len(forms) != 1 {
				t.Fatalf("%d forms shown, want 1", len(forms))
			}
			schema, _ := json.Marshal(forms[0].RequestedSchema)
			if !strings.Contains(string(schema), `"oneOf":[{"const":"Port 8080","title":"Port 8080"},{"const":"Port 9090","title":"Port 9090"}]`) ||
				!strings.Contains(string(schema), `"type":"integer"`) {
				t.Errorf("requestedSchema: %s", schema)
			}
			q, err := br.api(keyBuilder).Get(context.Background(), o.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			if q.Status != client.StatusAnswered || q.Reason != mcp.ReasonAnsweredLocally || q.AnsweredBy.Channel != "terminal" {
				t.Fatalf("the bridge has %s %q by %+v", q.Status, q.Reason, q.AnsweredBy)
			}
			if edit := editedCopy(t, br.ch, o.ID); edit.AnsweredBy == nil || edit.AnsweredBy.Channel != "terminal" {
				t.Errorf("the chat copy was edited to %s by %+v", edit.Status, edit.AnsweredBy)
			}
		})
	}
}

// On 2026-07-28, chat answering while the form is shown wins: the form's
// response is dropped and the call returns chat's answer; a dismissed
// form leaves the call waiting for chat.
func TestRaceLocalInputRequestChat(t *testing.T) {
	one := map[string]any{"questions": []any{map[string]any{"question": "Which port?", "options": []any{
		map[string]any{"label": "Port 8080"}, map[string]any{"label": "Port 9090"}}}}}
	t.Run("chat first", func(t *testing.T) {
		br := startTaskBridge(t, "sqlite")
		cs, _ := connectLocal(t, raceTaskServer(t, br), "2026-07-28", func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			br.person(t, "/answer "+br.posted(t, 1)+" 1")
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Port 9090"}}, nil
		})
		_, o := resultOf(t, callAsk(cs, one))
		if o.Status != client.StatusAnswered || o.Answers["Which port?"].Selected[0] != "Port 8080" || o.AnsweredBy == nil || o.AnsweredBy.Channel != "room" {
			t.Fatalf("outcome %+v, want chat's Port 8080", o)
		}
	})
	t.Run("dismissed", func(t *testing.T) {
		br := startTaskBridge(t, "sqlite")
		cs, _ := connectLocal(t, raceTaskServer(t, br), "2026-07-28", func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "cancel"}, nil
		})
		done := callAsk(cs, one)
		id := br.posted(t, 1)
		ended := func() bool {
			q, err := br.api(keyBuilder).Get(context.Background(), id, 0)
			return err == nil && q.Status != client.StatusPending
		}
		if ended() {
			t.Fatal("a dismissed form ended the question")
		}
		br.person(t, "/answer "+id+" 2")
		_, o := resultOf(t, done)
		if o.Status != client.StatusAnswered || o.Answers["Which port?"].Selected[0] != "Port 9090" || o.AnsweredBy.Channel != "room" {
			t.Fatalf("outcome %+v, want chat's Port 9090", o)
		}
	})
}

// A requestState the server did not issue is refused, naming it, and
// nothing is answered.
func TestRaceLocalForgedState(t *testing.T) {
	br := startTaskBridge(t, "sqlite")
	s := raceTaskServer(t, br)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "raw", Version: "v0"}, &sdk.ClientOptions{
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "cancel"}, nil
		}})
	cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	args := map[string]any{"questions": []any{map[string]any{"question": "Which port?"}}}
	first, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolAskUser, Arguments: args})
	if err != nil || !first.NeedsInput() || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("first round: %v %+v", err, first)
	}
	id := br.posted(t, 1)
	forged := strings.Replace(first.RequestState, id, "zzzzzz", 1)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolAskUser, Arguments: args, RequestState: forged,
		InputResponses: sdk.InputResponseMap{"askbridge-local-form": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "8443"}}}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "requestState: not one this server issued") {
		t.Fatalf("a forged requestState: %v %+v %s", err, res, textOf(res))
	}
	if q, _ := br.api(keyBuilder).Get(context.Background(), id, 0); q.Status != client.StatusPending {
		t.Fatalf("after a forged requestState the question is %s", q.Status)
	}
}
