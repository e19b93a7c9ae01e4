package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// The local form on protocol 2026-07-28, where a server sends the client
// no request of its own: it asks for input in the result, as multi
// round-trip requests (SEP-2322). Once the question is asked in chat,
// ask_user returns an input_required result whose inputRequests hold the
// form (an elicitation/create) and whose requestState names the
// question; the client shows the form and calls ask_user again with the
// form's response in inputResponses and the same requestState. That call
// settles the question as racelocal.go does: accepted or declined at the
// terminal unless chat answered meanwhile (chat's answer is returned, the
// form's dropped), or, dismissed, waits for chat as a plain call.

// localFormKey is the key of the form in inputRequests.
const localFormKey = "askbridge-local-form"

// statePrefix starts the requestState of a local form.
const statePrefix = "askbridge-local.v1."

// localClient tells how the client of req takes a local form on
// 2026-07-28: whether it does (race-local, the request's protocol and
// its capabilities), its protocol version and the name answers are
// given by.
func (s *Server) localClient(req *sdk.CallToolRequest) (ok bool, version string, who *client.Responder) {
	ri, isInfo := any(req).(requestInfo)
	if !s.cfg.RaceLocal || !isInfo || shapeOf(ri.ProtocolVersion()) != shapeExtension {
		return false, "", nil
	}
	caps := ri.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil || (caps.Elicitation.Form == nil && caps.Elicitation.URL != nil) {
		return false, "", nil
	}
	who = &client.Responder{Channel: terminalChannel, User: "local"}
	if req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
			who.User = ip.ClientInfo.Name
		}
	}
	return true, ri.ProtocolVersion(), who
}

// askLocal is the input_required result that hands the client the form
// of question id, or nil when the client takes none or the question
// cannot be a form.
func (s *Server) askLocal(req *sdk.CallToolRequest, in *AskInput, id string) *sdk.CallToolResult {
	ok, version, _ := s.localClient(req)
	if !ok {
		return nil
	}
	form, why := formFor(in, version)
	if form == nil {
		s.log.Debug("mcp: no local form, chat only", "question_id", id, "why", why)
		return nil
	}
	s.log.Debug("mcp: local form handed to the client", "question_id", id)
	return &sdk.CallToolResult{
		InputRequests: sdk.InputRequestMap{localFormKey: &sdk.ElicitParams{Mode: "form", Message: form.message, RequestedSchema: form.schema}},
		RequestState:  s.sealState(id),
	}
}

// resumeLocal answers the call that brings back a form's response. It
// returns the call's result, or, when chat is to decide (the form was
// dismissed), nil and the question, still pending, to wait for.
func (s *Server) resumeLocal(ctx context.Context, req *sdk.CallToolRequest, in *AskInput, a Asker) (*sdk.CallToolResult, *client.Result) {
	id, err := s.openState(req.Params.RequestState)
	if err != nil {
		return toolError(err), nil
	}
	s.leases.release(id)
	cur, err := s.getOnce(ctx, a, id)
	if err != nil {
		return toolError(bridgeError(err, len(in.Questions))), nil
	}
	if cur.Terminal() {
		// Chat answered while the form was shown: that answer stands.
		s.log.Info("mcp question answered in chat before the local form", "question_id", id)
		return s.result(ctx, a, cur), nil
	}
	res, _ := req.Params.InputResponses[localFormKey].(*sdk.ElicitResult)
	_, version, who := s.localClient(req)
	if who == nil {
		who = &client.Responder{Channel: terminalChannel, User: "local"}
	}
	form, _ := formFor(in, version)
	if res == nil || form == nil || (res.Action != "accept" && res.Action != "decline") {
		s.log.Debug("mcp: local form dismissed, chat only", "question_id", id)
		return nil, cur
	}
	if out := s.settleLocal(ctx, a, id, &localRace{form: form, who: who, res: res}); out != nil {
		return out, nil
	}
	return nil, cur
}

// sealState is the requestState naming question id, signed with the
// server's key: the client echoes it, and a state this server did not
// issue is refused.
func (s *Server) sealState(id string) string {
	return statePrefix + id + "." + s.stateMAC(id)
}

func (s *Server) stateMAC(id string) string {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// openState returns the question a requestState names.
func (s *Server) openState(state string) (string, error) {
	rest, ok := strings.CutPrefix(state, statePrefix)
	id, mac, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || id == "" || !hmac.Equal([]byte(mac), []byte(s.stateMAC(id))) {
		return "", errors.New("requestState: not one this server issued (it is valid only on the server that returned it); call ask_user without it to ask again")
	}
	return id, nil
}

// errNoState is a call with inputResponses but no requestState.
var errNoState = errors.New("inputResponses without requestState: send back the requestState of the result that asked for the input")
