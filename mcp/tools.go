package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/backoff"
)

// Tool names.
const (
	ToolAskUser        = "ask_user"
	ToolGetAnswer      = "get_answer"
	ToolCancelQuestion = "cancel_question"
)

// addTools registers the tools with schemas inferred from the input types.
// The handlers decode the arguments themselves, so that a mistake comes
// back as a tool error in the bridge's own words, naming the field.
func (s *Server) addTools() error {
	out, err := jsonschema.For[Outcome](outcomeOptions)
	if err != nil {
		return fmt.Errorf("mcp: output schema: %w", err)
	}
	askIn, err := askSchema()
	if err != nil {
		return err
	}
	getIn, err := jsonschema.For[GetInput](nil)
	if err != nil {
		return fmt.Errorf("mcp: get_answer schema: %w", err)
	}
	getIn.Properties["wait_seconds"].Minimum = jsonschema.Ptr(0.0)
	getIn.Properties["wait_seconds"].Maximum = jsonschema.Ptr(MaxGetWait.Seconds())
	fixNullable(getIn)
	cancelIn, err := jsonschema.For[CancelInput](nil)
	if err != nil {
		return fmt.Errorf("mcp: cancel_question schema: %w", err)
	}
	open := false
	s.sdk.AddTool(&sdk.Tool{
		Name: ToolAskUser, Title: "Ask the user", Description: askDescription + "\n\n" + filesDescription(s.embedLimit()),
		InputSchema: askIn, OutputSchema: out,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: false, OpenWorldHint: &open},
	}, s.askUser)
	s.sdk.AddTool(&sdk.Tool{
		Name: ToolGetAnswer, Title: "Get the answer to a question", Description: getDescription + " " + filesDescription(s.embedLimit()),
		InputSchema: getIn, OutputSchema: out,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &open},
	}, s.getAnswer)
	s.sdk.AddTool(&sdk.Tool{
		Name: ToolCancelQuestion, Title: "Withdraw a question", Description: cancelDescription,
		InputSchema: cancelIn, OutputSchema: out,
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: &open},
	}, s.cancelQuestion)
	return nil
}

// askSchema is ask_user's input schema: inferred from AskInput, with the
// limits of the model added so that clients and models can see them.
func askSchema() (*jsonschema.Schema, error) {
	in, err := jsonschema.For[AskInput](nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: ask_user schema: %w", err)
	}
	qs := in.Properties["questions"]
	qs.MinItems, qs.MaxItems = jsonschema.Ptr(1), jsonschema.Ptr(4)
	q := qs.Items
	q.Properties["header"].MaxLength = jsonschema.Ptr(16)
	opts := q.Properties["options"]
	opts.MinItems, opts.MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(4)
	opts.Items.Properties["action"].Enum = []any{"end_turn", "new_session"}
	def := q.Properties["default"]
	*def = jsonschema.Schema{Description: def.Description, AnyOf: []*jsonschema.Schema{
		{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}}
	fixNullable(in)
	fixNullable(q)
	fixFieldSchema(q.Properties["field"])
	return in, nil
}

// fixNullable makes optional pointer fields plain types: the inference
// writes *bool as ["null","boolean"], which models read as odd.
func fixNullable(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
}

// getAnswer is the get_answer tool.
func (s *Server) getAnswer(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in GetInput
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError(err), nil
	}
	if strings.TrimSpace(in.ID) == "" {
		return toolError(errors.New("id: give the question id that ask_user returned")), nil
	}
	wait := DefaultGetWait
	if in.WaitSeconds != nil {
		if *in.WaitSeconds < 0 || time.Duration(*in.WaitSeconds)*time.Second > MaxGetWait {
			return toolError(fmt.Errorf("wait_seconds: must be 0 to %d, got %d", int(MaxGetWait.Seconds()), *in.WaitSeconds)), nil
		}
		wait = time.Duration(*in.WaitSeconds) * time.Second
	}
	asker, err := s.cfg.Asker(header(req))
	if err != nil {
		return toolError(err), nil
	}
	res, err := s.getOnce(ctx, asker, in.ID)
	if err != nil {
		return toolError(bridgeError(err, 0)), nil
	}
	if !res.Terminal() && wait > 0 {
		stop, seen := s.progress(ctx, req, res)
		res, err = s.waitFor(ctx, asker, in.ID, wait, seen)
		stop()
		if err != nil {
			return toolError(bridgeError(err, 0)), nil
		}
	}
	if !res.Terminal() {
		// The session that collects the answer keeps the question open.
		s.leases.hold(asker, sessionOf(req), res, s.cfg.Lease)
		return withText(fmt.Sprintf("Still pending: nobody has answered question %s yet. Call get_answer again later, or cancel_question to withdraw it.", in.ID), outcomeOf(res)), nil
	}
	s.leases.release(in.ID)
	return s.result(ctx, asker, res), nil
}

// getOnce reads the question, retrying a bridge that is restarting for a
// few seconds.
func (s *Server) getOnce(ctx context.Context, a Asker, id string) (*client.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pauses := backoff.New(retryDelay, maxGetRetryDelay)
	for {
		res, err := a.Get(ctx, id, 0)
		if err == nil || !client.Transient(err) || ctx.Err() != nil {
			return res, err
		}
		if pauses.Wait(ctx) != nil {
			return nil, err
		}
	}
}

// cancelQuestion is the cancel_question tool.
func (s *Server) cancelQuestion(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in CancelInput
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError(err), nil
	}
	if strings.TrimSpace(in.ID) == "" {
		return toolError(errors.New("id: give the question id that ask_user returned")), nil
	}
	asker, err := s.cfg.Asker(header(req))
	if err != nil {
		return toolError(err), nil
	}
	reason := in.Reason
	if reason == "" {
		reason = "withdrawn by the agent"
	}
	res, err := asker.Cancel(ctx, in.ID, reason)
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == 409 {
		// It ended before the cancel: report how.
		if cur, gerr := s.getOnce(ctx, asker, in.ID); gerr == nil {
			return withText("Question "+in.ID+" had already ended. "+outcomeText(cur), outcomeOf(cur)), nil
		}
	}
	if err != nil {
		return toolError(bridgeError(err, 0)), nil
	}
	s.leases.release(in.ID)
	return withText(fmt.Sprintf("Question %s was cancelled.", in.ID), outcomeOf(res)), nil
}
