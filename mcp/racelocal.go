package mcp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// A question raced between the client's own screen and chat
// (Config.RaceLocal). Once ask_user's question is asked in chat, the
// server also sends the client an elicitation/create with the same
// prompts (racelocal_form.go), and the first answer wins:
//
//   - accepted at the terminal: the bridge records the form's answers as
//     the question's answer, given by the terminal with the reason
//     ReasonAnsweredLocally (TerminalAnswerer), which edits every chat
//     copy; the call returns that answer;
//   - declined at the terminal: closed likewise with ReasonDeclinedLocally,
//     and the call returns the question declined;
//   - dismissed (cancel), or the client cannot show the form: chat alone
//     decides;
//   - answered in chat first: the elicitation's context is cancelled, and
//     the SDK sends the client notifications/cancelled for it.

// Reasons shown on the chat copies of a question settled at the terminal.
const (
	ReasonAnsweredLocally = broker.ReasonAnsweredAtTerminal
	ReasonDeclinedLocally = "declined at the terminal"
)

// terminalChannel is the channel of answered_by for an answer given in
// the client's own form.
const terminalChannel = broker.TerminalChannel

// TerminalAnswerer is implemented by Askers that record an answer given
// at the agent's own screen (*client.Client does). Without one, a form
// accepted at the terminal closes the question as cancelled with the
// reason ReasonAnsweredLocally, and only the call returns the answers.
type TerminalAnswerer interface {
	AnswerAtTerminal(ctx context.Context, id, clientName string, answers map[string]client.Answer) (*client.Result, error)
}

var _ TerminalAnswerer = (*client.Client)(nil)

// localRace is the elicitation of one ask_user call, in flight.
type localRace struct {
	form   *localForm
	who    *client.Responder
	cancel context.CancelFunc
	done   chan struct{}
	// settled closes when the person accepted or declined the form (not
	// when it was dismissed or failed): chat is then no longer waited for.
	settled chan struct{}
	once    sync.Once
	res     *sdk.ElicitResult // set before settled closes
}

// startLocal sends the form of in to the client of req, when the server
// races and the client can show it; nil otherwise. The caller stops it.
func (s *Server) startLocal(ctx context.Context, req *sdk.CallToolRequest, in *AskInput, id string) *localRace {
	if !s.cfg.RaceLocal || req.Session == nil {
		return nil
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || shapeOf(ip.ProtocolVersion) == shapeExtension {
		// On 2026-07-28 the form goes in the result (racelocal_mrtr.go).
		return nil
	}
	if c := ip.Capabilities.Elicitation; c.Form == nil && c.URL != nil {
		s.log.Debug("mcp: no local form: the client takes only URL elicitations", "question_id", id)
		return nil
	}
	form, why := formFor(in, ip.ProtocolVersion)
	if form == nil {
		s.log.Debug("mcp: no local form, chat only", "question_id", id, "why", why)
		return nil
	}
	who := &client.Responder{Channel: terminalChannel, User: "local"}
	if ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
		who.User = ip.ClientInfo.Name
	}
	lctx, cancel := context.WithCancel(ctx)
	r := &localRace{form: form, who: who, cancel: cancel, done: make(chan struct{}), settled: make(chan struct{})}
	go func() {
		defer close(r.done)
		res, err := req.Session.Elicit(lctx, &sdk.ElicitParams{Mode: "form", Message: form.message, RequestedSchema: form.schema})
		switch {
		case err != nil && lctx.Err() != nil:
			s.log.Debug("mcp: local form withdrawn", "question_id", id)
		case err != nil:
			s.log.Debug("mcp: local form failed, chat only", "question_id", id, "err", err)
		case res.Action == "accept" || res.Action == "decline":
			r.res = res
			close(r.settled)
		default:
			s.log.Debug("mcp: local form dismissed, chat only", "question_id", id)
		}
	}()
	return r
}

// stop withdraws the form if it is still open and waits for it.
func (r *localRace) stop() {
	if r == nil {
		return
	}
	r.once.Do(r.cancel)
	<-r.done
}

// waitContext is ctx, ended also when the form settles, for the wait
// on chat.
func (r *localRace) waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if r == nil {
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-r.settled:
			cancel()
		case <-wctx.Done():
		}
	}()
	return wctx, cancel
}

// won reports whether the form was accepted or declined.
func (r *localRace) won() bool {
	if r == nil {
		return false
	}
	select {
	case <-r.settled:
		return true
	default:
		return false
	}
}

// settleLocal closes question id with the form's answer: the bridge
// edits every copy with the reason, and the call returns the form's
// answers (or the decline). When chat answered meanwhile, that answer
// stands and is returned.
func (s *Server) settleLocal(ctx context.Context, a Asker, id string, r *localRace) *sdk.CallToolResult {
	out := &client.Result{ID: id, Status: client.StatusDeclined, AnsweredBy: r.who}
	reason := ReasonDeclinedLocally
	if r.res.Action == "accept" {
		answers, err := r.form.answers(r.res.Content, r.who)
		if err != nil {
			s.log.Warn("mcp: local answer unreadable, chat decides", "question_id", id, "err", err)
			return nil
		}
		out.Status, out.Answers, reason = client.StatusAnswered, answers, ReasonAnsweredLocally
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var err error
	if ta, ok := a.(TerminalAnswerer); ok && out.Status == client.StatusAnswered {
		var res *client.Result
		res, err = ta.AnswerAtTerminal(cctx, id, r.who.User, out.Answers)
		if err == nil {
			s.log.Info("mcp question answered at the terminal", "question_id", id)
			return s.result(ctx, a, res)
		}
		if isInvalid(err) {
			s.log.Warn("mcp: the bridge refused the local answer, chat decides", "question_id", id, "err", err)
			return nil
		}
		if isMissingRoute(err) {
			// A bridge without the endpoint: close the question as the
			// hooks do.
			_, err = a.Cancel(cctx, id, reason)
		}
	} else {
		_, err = a.Cancel(cctx, id, reason)
	}
	var ae *client.APIError
	switch {
	case errors.As(err, &ae) && ae.StatusCode < 500:
		// Answered in chat meanwhile: that answer stands.
		res, gerr := a.Get(cctx, id, 0)
		if gerr != nil {
			return toolError(bridgeError(gerr, len(r.form.prompts)))
		}
		return s.result(ctx, a, res)
	case err != nil:
		return toolError(bridgeError(err, len(r.form.prompts)))
	}
	s.log.Info("mcp question settled at the terminal", "question_id", id, "status", out.Status)
	return resultFor(out)
}

// isInvalid reports whether the bridge refused a request as bad input.
func isInvalid(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode == 400
}

// isMissingRoute reports whether the bridge has no such endpoint (an
// older bridge).
func isMissingRoute(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && (ae.StatusCode == 405 || ae.StatusCode == 404 && strings.HasPrefix(ae.Message, "no such endpoint"))
}
