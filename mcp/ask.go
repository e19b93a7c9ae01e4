package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/backoff"
)

// CancelReason is the reason given to people when the agent's MCP request
// was cancelled while its question waited.
const CancelReason = "the agent's request was cancelled"

// askUser is the ask_user tool.
func (s *Server) askUser(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if s.cfg.NoUserQuestion {
		return questionsOffResult(), nil
	}
	var in AskInput
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return toolError(err), nil
	}
	lease, err := in.lease(s.cfg.Lease)
	if err != nil {
		return toolError(err), nil
	}
	asker, err := s.cfg.Asker(header(req))
	if err != nil {
		return toolError(err), nil
	}
	session, call := s.ids(req)
	ctx, done := s.leases.call(ctx, sessionOf(req), header(req))
	defer done()
	if req.Params.RequestState != "" {
		// The local form's response (racelocal_mrtr.go).
		out, res := s.resumeLocal(ctx, req, &in, asker)
		if out != nil {
			return out, nil
		}
		return s.await(ctx, req, asker, res, len(in.Questions), lease, nil), nil
	}
	if len(req.Params.InputResponses) > 0 {
		return toolError(errNoState), nil
	}
	q := in.question(session, call)
	if lease > 0 {
		q.Lease = lease.String()
	}
	wait := in.Wait == nil || *in.Wait
	// A waiting call submits with a short wait, to learn the question's
	// id at once (for progress and for cancelling it), then long-polls.
	// Zero would be the bridge's pending mode.
	q.Wait = "0s"
	if wait {
		q.Wait = submitWait.String()
	}
	res, err := s.submit(ctx, asker, q, wait)
	if isConflict(err) && strings.HasPrefix(call, "progress-") {
		// The client used this progress token before for another
		// question: this call is a new question, not a retry.
		q.ToolCallID = "call-" + randomHex(8)
		res, err = s.submit(ctx, asker, q, wait)
	}
	if ctx.Err() != nil && wait {
		if res == nil {
			res = s.reattach(asker, q)
		}
		s.cancelAbandoned(ctx, asker, res, ctx.Err())
		return toolError(errors.New("the request was cancelled before the question was asked")), nil
	}
	if err != nil {
		return toolError(bridgeError(err, len(in.Questions))), nil
	}
	s.log.Info("mcp question asked", "question_id", res.ID, "session_id", session, "tool_call_id", q.ToolCallID, "wait", wait)
	if !wait || res.Terminal() {
		s.leases.hold(asker, sessionOf(req), res, lease)
		return s.result(ctx, asker, res), nil
	}
	if out := s.askLocal(req, &in, res.ID); out != nil {
		s.leases.hold(asker, sessionOf(req), res, lease)
		return out, nil
	}
	return s.await(ctx, req, asker, res, len(in.Questions), lease, s.startLocal(ctx, req, &in, res.ID)), nil
}

// await waits for the answer to question res of a call, racing it
// against the local form race when there is one, and returns the call's
// result.
func (s *Server) await(ctx context.Context, req *sdk.CallToolRequest, asker Asker, res *client.Result, prompts int, lease time.Duration, race *localRace) *sdk.CallToolResult {
	warnings := res.Warnings
	stop, seen := s.progress(ctx, req, res)
	defer stop()
	defer race.stop()
	wctx, wdone := race.waitContext(ctx)
	defer wdone()
	id := res.ID
	res, err := s.waitFor(wctx, asker, id, 0, seen)
	if race.won() && ctx.Err() == nil && s.draining.Err() == nil && (err != nil || !res.Terminal()) {
		if r := s.settleLocal(ctx, asker, id, race); r != nil {
			return r
		}
		res, err = s.waitFor(ctx, asker, id, 0, seen)
	}
	res = keepWarnings(res, warnings)
	if err == nil && res.Terminal() {
		return s.result(ctx, asker, res)
	}
	if ctx.Err() == nil && s.draining.Err() != nil && err == nil {
		s.leases.hold(asker, sessionOf(req), res, lease)
		return withText("The bridge is restarting. "+pendingText(res), outcomeOf(res))
	}
	if ctx.Err() != nil {
		s.cancelAbandoned(ctx, asker, res, err)
		return toolError(fmt.Errorf("the request was cancelled; question %s was cancelled too", idOf(res)))
	}
	if err != nil {
		return toolError(bridgeError(err, prompts))
	}
	s.leases.hold(asker, sessionOf(req), res, lease)
	return s.result(ctx, asker, res) // pending: only when the wait ended otherwise
}

// sessionOf is the id of the call's MCP session ("" on stdio, whose
// session is the process).
func sessionOf(req *sdk.CallToolRequest) string {
	if req.Session != nil {
		return req.Session.ID()
	}
	return ""
}

// submitWait is how long the first submit of a waiting call blocks.
const submitWait = 100 * time.Millisecond

// The pauses between retries of a bridge that is restarting start at
// retryDelay and double up to maxRetryDelay (maxGetRetryDelay for a
// single read).
const (
	retryDelay       = 200 * time.Millisecond
	maxRetryDelay    = 5 * time.Second
	maxGetRetryDelay = 2 * time.Second
)

// reattach finds the question of a request cancelled while it was being
// submitted: asking again with the same session and tool-call ids returns
// the question the first submit created.
func (s *Server) reattach(a Asker, q client.Question) *client.Result {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q.Wait = submitWait.String()
	res, err := a.Submit(ctx, q)
	if err != nil {
		return nil
	}
	return res
}

// submit sends q, retrying transient failures (a bridge that restarts)
// for a while; validation and other client errors return at once, and so
// does a pending-mode ask, whose caller is not prepared to wait.
func (s *Server) submit(ctx context.Context, a Asker, q client.Question, wait bool) (*client.Result, error) {
	pauses := backoff.New(retryDelay, maxRetryDelay)
	giveUp := time.Now().Add(s.submitRetry)
	for {
		res, err := a.Submit(ctx, q)
		if err == nil || !client.Transient(err) || ctx.Err() != nil || !wait || time.Now().After(giveUp) {
			return res, err
		}
		if pauses.Wait(ctx) != nil {
			return nil, err
		}
	}
}

// waitFor long-polls the question until it ends, ctx ends, or (with a
// bound > 0) the bound passes; a deadline that a snooze moves does not
// end it (the bridge answers such a long-poll early, with the new
// expires_at, which seen is handed). Lost connections are retried; the
// last known state is returned with ctx's end.
func (s *Server) waitFor(ctx context.Context, a Asker, id string, bound time.Duration, seen func(*client.Result)) (*client.Result, error) {
	if bound > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bound)
		defer cancel()
	}
	// A draining server stops waiting; the caller tells the two apart.
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(s.draining, cancel)()
	defer cancel()
	last := &client.Result{ID: id, Status: client.StatusPending}
	pauses := backoff.New(retryDelay, maxRetryDelay)
	for {
		wait := s.cfg.PollWait
		if dl, ok := ctx.Deadline(); ok {
			wait = min(wait, time.Until(dl))
		}
		if wait <= 0 {
			return last, nil
		}
		started := time.Now()
		res, err := a.Get(ctx, id, wait)
		switch {
		case err == nil && res.Terminal():
			return res, nil
		case err == nil:
			snoozed := res.Snoozes > last.Snoozes
			last = res
			seen(res)
			pauses.Reset()
			if snoozed || time.Since(started) >= wait/2 {
				continue // a snooze ended the long-poll early
			}
			// The bridge answered early (it is draining for a restart):
			// pause before asking again.
		case ctx.Err() != nil:
			return last, nil
		case !client.Transient(err):
			return last, err
		}
		if pauses.Wait(ctx) != nil {
			return last, nil
		}
	}
}

// cancelAbandoned cancels the question of a request that was cancelled
// (callCtx, ended): with CancelReason, or ReasonAgentGone when its
// session ended.
func (s *Server) cancelAbandoned(callCtx context.Context, a Asker, res *client.Result, waitErr error) {
	if res == nil || res.ID == "" {
		return
	}
	reason := CancelReason
	if errors.Is(context.Cause(callCtx), errAgentGone) {
		reason = ReasonAgentGone
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := a.Cancel(ctx, res.ID, reason); err != nil {
		s.log.Warn("mcp: cancel question of a cancelled request", "question_id", res.ID, "err", err, "wait_err", waitErr)
		return
	}
	s.log.Info("mcp request cancelled; question cancelled", "question_id", res.ID)
}

// ids returns the session id and tool-call id of a call. The session is
// the MCP session's id (the server's own on stdio). The tool-call id is
// derived from the request's progress token, which a client keeps when it
// retries a call, so the retry finds the same question; without a token
// every call is a new question.
func (s *Server) ids(req *sdk.CallToolRequest) (session, call string) {
	if req.Session != nil {
		session = req.Session.ID()
	}
	if session == "" {
		session = s.cfg.SessionID
		if header(req) != nil {
			// Sessionless HTTP: many clients share the server's id, so
			// their progress tokens cannot name questions.
			return session, "call-" + randomHex(8)
		}
	}
	if tok := req.Params.GetProgressToken(); tok != nil {
		t := fmt.Sprint(tok)
		if len(t) > 100 || strings.ContainsFunc(t, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			sum := sha256.Sum256([]byte(t))
			t = hex.EncodeToString(sum[:16])
		}
		return session, "progress-" + t
	}
	return session, "call-" + randomHex(8)
}

func header(req *sdk.CallToolRequest) http.Header {
	if req.Extra != nil {
		return req.Extra.Header
	}
	return nil
}

// isConflict reports a 409 for an idempotency key that names another
// question.
func isConflict(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusConflict && ae.Code == "conflict"
}

func idOf(r *client.Result) string {
	if r == nil {
		return ""
	}
	return r.ID
}
