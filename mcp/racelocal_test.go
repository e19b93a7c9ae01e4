package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// elicitations records the elicitation/create requests a client received.
type elicitations struct {
	mu   sync.Mutex
	reqs []*sdk.ElicitParams
}

func (e *elicitations) add(p *sdk.ElicitParams) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reqs = append(e.reqs, p)
}

func (e *elicitations) all() []*sdk.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*sdk.ElicitParams(nil), e.reqs...)
}

// raceServer is a server that races questions locally.
func raceServer(t *testing.T, br *bridge) *mcp.Server {
	t.Helper()
	s, err := mcp.New(mcp.Config{Asker: mcp.Fixed(br.api), SessionID: "s1", ProgressEvery: 100 * time.Millisecond, PollWait: time.Second, RaceLocal: true, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connectLocal connects a client whose screen shows forms through
// handle (nil: a client without elicitation) on protocol version
// (2025-11-25 when ""); every elicitation/create the client receives
// is recorded, whether or not it can show it.
func connectLocal(t *testing.T, s *mcp.Server, version string, handle func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) (*sdk.ClientSession, *elicitations) {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := &elicitations{}
	c := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "v0"}, &sdk.ClientOptions{ElicitationHandler: handle})
	c.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "elicitation/create" {
				if p, ok := req.GetParams().(*sdk.ElicitParams); ok {
					seen.add(p)
				}
			}
			return next(ctx, method, req)
		}
	})
	if version == "" {
		version = "2025-11-25"
	}
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs, seen
}

// callAsk calls ask_user with args in the background.
func callAsk(cs *sdk.ClientSession, args map[string]any) <-chan *sdk.CallToolResult {
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: args})
		if err != nil {
			res = &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	return done
}

func resultOf(t *testing.T, done <-chan *sdk.CallToolResult) (*sdk.CallToolResult, mcp.Outcome) {
	t.Helper()
	var res *sdk.CallToolResult
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("ask_user did not return")
	}
	if res.IsError {
		t.Fatalf("ask_user failed: %s", textOf(res))
	}
	var o mcp.Outcome
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return res, o
}

// portAndRegion is a dialog of a choice and a typed field.
var portAndRegion = map[string]any{"questions": []any{
	map[string]any{"question": "Which port?", "options": []any{
		map[string]any{"label": "Port 8080", "description": "the usual one"},
		map[string]any{"label": "Port 9090", "action": "end_turn"},
	}},
	map[string]any{"question": "How many replicas?", "field": map[string]any{"type": "integer", "minimum": 1, "maximum": 9}},
}}

// closedCopy waits until the chat copy of the question is edited
// closed, and returns that edit.
func closedCopy(t *testing.T, br *bridge) *broker.Question {
	t.Helper()
	var last *broker.Question
	ok := br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool {
		for _, u := range c.Updates() {
			if u.Status != broker.StatusPending {
				last = u
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatal("the chat copy was not edited")
	}
	return last
}

// TestRaceLocalAnswerFirst: the person answers the form at the terminal;
// the chat copy is edited "answered at the terminal", and the call
// returns the form's answers, answered_by the terminal.
func TestRaceLocalAnswerFirst(t *testing.T) {
	br := startBridge(t)
	cs, seen := connectLocal(t, raceServer(t, br), "", func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Port 9090", "q2": 3}}, nil
	})
	res, o := resultOf(t, callAsk(cs, portAndRegion))

	if o.Status != client.StatusAnswered {
		t.Fatalf("status %s, want answered: %s", o.Status, textOf(res))
	}
	port, replicas := o.Answers["Which port?"], o.Answers["How many replicas?"]
	if len(port.Selected) != 1 || port.Selected[0] != "Port 9090" || port.Action != "end_turn" {
		t.Errorf("port answer %+v, want Port 9090 with its action end_turn", port)
	}
	if string(replicas.Value) != "3" {
		t.Errorf("replicas value %s, want 3", replicas.Value)
	}
	for q, a := range o.Answers {
		if a.AnsweredBy == nil || a.AnsweredBy.Channel != "terminal" || a.AnsweredBy.User != "claude-code" {
			t.Errorf("%s answered_by %+v, want the terminal of claude-code", q, a.AnsweredBy)
		}
	}
	if o.AnsweredBy == nil || o.AnsweredBy.Channel != "terminal" {
		t.Errorf("answered_by %+v, want the terminal", o.AnsweredBy)
	}
	if !strings.HasPrefix(textOf(res), "User answered your questions:") || !strings.Contains(textOf(res), `"Port 9090"`) {
		t.Errorf("text for the model:\n%s", textOf(res))
	}

	// The form the client was sent: one property per prompt.
	forms := seen.all()
	if len(forms) != 1 {
		t.Fatalf("%d forms sent, want 1", len(forms))
	}
	schema, _ := json.Marshal(forms[0].RequestedSchema)
	for _, want := range []string{`"q1":{`, `"oneOf":[{"const":"Port 8080","title":"Port 8080"},{"const":"Port 9090","title":"Port 9090"}]`, `"title":"Which port?"`, `"description":"Port 8080: the usual one"`, `"q2":{`, `"type":"integer"`, `"minimum":1`, `"maximum":9`, `"required":["q1","q2"]`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("requestedSchema lacks %s: %s", want, schema)
		}
	}

	// Every chat copy says it was answered at the terminal.
	edit := closedCopy(t, br)
	if edit.Status != broker.StatusAnswered || edit.Reason != mcp.ReasonAnsweredLocally {
		t.Errorf("chat copy edited to %s %q, want answered %q", edit.Status, edit.Reason, mcp.ReasonAnsweredLocally)
	}
	q, err := br.api.Get(context.Background(), o.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Status != client.StatusAnswered || q.Reason != mcp.ReasonAnsweredLocally || q.AnsweredBy == nil || q.AnsweredBy.Channel != "terminal" {
		t.Errorf("bridge has the question %s %q by %+v, want answered at the terminal", q.Status, q.Reason, q.AnsweredBy)
	}
	// A late chat answer changes nothing.
	reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: "/answer " + o.ID + ".1 1"})
	if reply.OK {
		t.Errorf("a chat answer after the terminal's was taken: %s", reply.Text)
	}
}

// TestRaceLocalChatFirst: someone answers in chat while the form is
// open; the client sees the form cancelled, and the call returns chat's
// answer.
func TestRaceLocalChatFirst(t *testing.T) {
	br := startBridge(t)
	opened := make(chan struct{})
	withdrawn := make(chan error, 1)
	cs, _ := connectLocal(t, raceServer(t, br), "", func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		close(opened)
		<-ctx.Done()
		withdrawn <- ctx.Err()
		return &sdk.ElicitResult{Action: "cancel"}, nil
	})
	done := callAsk(cs, portAndRegion)
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("no form was shown")
	}
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > 0 }) {
		t.Fatal("no question was posted")
	}
	id := br.ch.Posts()[0].ID
	for _, text := range []string{"/answer " + id + ".1 1", "/answer " + id + ".2 4"} {
		if reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: text}); !reply.OK {
			t.Fatalf("%s refused: %s", text, reply.Text)
		}
	}
	res, o := resultOf(t, done)
	if o.Status != client.StatusAnswered {
		t.Fatalf("status %s, want answered: %s", o.Status, textOf(res))
	}
	port := o.Answers["Which port?"]
	if len(port.Selected) != 1 || port.Selected[0] != "Port 8080" || port.AnsweredBy == nil || port.AnsweredBy.Channel != "room" {
		t.Errorf("port answer %+v, want chat's Port 8080", port)
	}
	if v := o.Answers["How many replicas?"].Value; string(v) != "4" {
		t.Errorf("replicas %s, want chat's 4", v)
	}
	select {
	case err := <-withdrawn:
		if err == nil {
			t.Error("the form's context ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's form was not cancelled after the chat answer")
	}
}

// TestRaceLocalDecline: the person declines the form; the question is
// declined for the agent and closed in chat.
func TestRaceLocalDecline(t *testing.T) {
	br := startBridge(t)
	cs, _ := connectLocal(t, raceServer(t, br), "", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "decline"}, nil
	})
	res, o := resultOf(t, callAsk(cs, portAndRegion))
	if o.Status != client.StatusDeclined || o.AnsweredBy == nil || o.AnsweredBy.Channel != "terminal" || len(o.Answers) != 0 {
		t.Fatalf("outcome %+v, want declined at the terminal without answers", o)
	}
	if !strings.HasPrefix(textOf(res), "The user declined.") {
		t.Errorf("text for the model: %s", textOf(res))
	}
	edit := closedCopy(t, br)
	if edit.Status != broker.StatusCancelled || edit.Reason != mcp.ReasonDeclinedLocally {
		t.Errorf("chat copy edited to %s %q, want cancelled %q", edit.Status, edit.Reason, mcp.ReasonDeclinedLocally)
	}
}

// TestRaceLocalDismissed: the person dismisses the form; chat decides.
func TestRaceLocalDismissed(t *testing.T) {
	br := startBridge(t)
	dismissed := make(chan struct{})
	cs, _ := connectLocal(t, raceServer(t, br), "", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		defer close(dismissed)
		return &sdk.ElicitResult{Action: "cancel"}, nil
	})
	done := callAsk(cs, map[string]any{"questions": []any{map[string]any{"question": "Which port?"}}})
	select {
	case <-dismissed:
	case <-time.After(10 * time.Second):
		t.Fatal("no form was shown")
	}
	br.answer(t, func(id string) string { return "/answer " + id + " 8443" })
	_, o := resultOf(t, done)
	a := o.Answers["Which port?"]
	if o.Status != client.StatusAnswered || a.CustomText != "8443" || a.AnsweredBy == nil || a.AnsweredBy.Channel != "room" {
		t.Fatalf("outcome %+v, want chat's answer 8443", o)
	}
}

// TestRaceLocalChatOnly: no form is sent to a client without
// elicitation, nor for a prompt the client's protocol cannot put in a
// form (several choices before 2025-11-25); chat answers as usual.
func TestRaceLocalChatOnly(t *testing.T) {
	multi := map[string]any{"questions": []any{map[string]any{"question": "Which regions?", "multi_select": true, "options": []any{
		map[string]any{"label": "Europe"}, map[string]any{"label": "Asia"},
	}}}}
	acceptAsia := func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": []any{"Asia"}}}, nil
	}
	for _, tc := range []struct {
		name, version string
		handle        func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
	}{
		{"client without elicitation", "", nil},
		{"several choices on 2025-06-18", "2025-06-18", acceptAsia},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := startBridge(t)
			cs, seen := connectLocal(t, raceServer(t, br), tc.version, tc.handle)
			done := callAsk(cs, multi)
			br.answer(t, func(id string) string { return "/answer " + id + " 1,2" })
			_, o := resultOf(t, done)
			a := o.Answers["Which regions?"]
			if o.Status != client.StatusAnswered || strings.Join(a.Selected, ",") != "Europe,Asia" || a.AnsweredBy.Channel != "room" {
				t.Fatalf("outcome %+v, want chat's Europe and Asia", o)
			}
			if n := len(seen.all()); n != 0 {
				t.Fatalf("%d forms sent, want none", n)
			}
		})
	}
}

// TestRaceLocalOldProtocolForm: a client on 2025-06-18 gets a choice as
// an enum with enumNames, the form of its version.
func TestRaceLocalOldProtocolForm(t *testing.T) {
	br := startBridge(t)
	cs, seen := connectLocal(t, raceServer(t, br), "2025-06-18", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Port 8080"}}, nil
	})
	_, o := resultOf(t, callAsk(cs, map[string]any{"questions": []any{map[string]any{"question": "Which port?", "options": []any{
		map[string]any{"label": "Port 8080"}, map[string]any{"label": "Port 9090"},
	}}}}))
	if o.Status != client.StatusAnswered || o.Answers["Which port?"].Selected[0] != "Port 8080" {
		t.Fatalf("outcome %+v, want Port 8080 from the terminal", o)
	}
	forms := seen.all()
	if len(forms) != 1 {
		t.Fatalf("%d forms sent, want 1", len(forms))
	}
	schema, _ := json.Marshal(forms[0].RequestedSchema)
	if !strings.Contains(string(schema), `"enum":["Port 8080","Port 9090"]`) || !strings.Contains(string(schema), `"enumNames":["Port 8080","Port 9090"]`) || strings.Contains(string(schema), "oneOf") {
		t.Errorf("requestedSchema for 2025-06-18: %s", schema)
	}
}

// TestRaceLocalWithoutQuestionsRefused: racing with questions turned off
// makes no sense, and New says so.
func TestRaceLocalWithoutQuestionsRefused(t *testing.T) {
	_, err := mcp.New(mcp.Config{Asker: mcp.Fixed(startBridge(t).api), RaceLocal: true, NoUserQuestion: true})
	if err == nil || !strings.Contains(err.Error(), "RaceLocal") || !strings.Contains(err.Error(), "NoUserQuestion") {
		t.Fatalf("New with RaceLocal and NoUserQuestion: %v", err)
	}
}
