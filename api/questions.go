package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// pendingBody is the 202 answer of an ask that has not resolved in time.
type pendingBody struct {
	ID        string        `json:"id"`
	Status    broker.Status `json:"status"`
	ExpiresAt time.Time     `json:"expires_at"`
	Snoozes   int           `json:"snoozes,omitempty"`
	// Warnings are the broker's warnings of a new or repeated ask
	// (broker.Asked).
	Warnings []string `json:"warnings,omitempty"`
}

func (s *Server) ask(w http.ResponseWriter, r *http.Request, agent string) {
	var req broker.AskRequest
	if decode(w, r, s.cfg.MaxBody, &req) {
		return
	}
	if err := s.checkIDs(agent, &req); err != nil {
		writeBrokerError(w, err)
		return
	}
	if req.CallbackURL != "" && s.cfg.CallbackPolicy != nil {
		if err := s.cfg.CallbackPolicy.Check(req.CallbackURL); err != nil {
			writeBrokerError(w, err)
			return
		}
	}
	a, err := s.b.AskWithWarnings(r.Context(), agent, &req)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	q, answer := a.Question, writeAsked
	if len(a.Warnings) > 0 {
		answer = writeWarned(a.Warnings)
	}
	wait := s.cfg.DefaultWait
	if req.Wait != nil {
		wait = min(time.Duration(*req.Wait), s.cfg.MaxWait)
	}
	if q.Status == broker.StatusPending && wait > 0 {
		if len(a.Warnings) > 0 && r.ProtoAtLeast(1, 1) {
			// The agent hears at once what its wait may come to
			// (warnings.go); HTTP/1.0 has no informational responses.
			warnHeaders(w.Header(), q.ID, a.Warnings)
			w.WriteHeader(http.StatusEarlyHints)
		}
		s.wait(w, r, agent, q.ID, wait, answer)
		return
	}
	answer(r.Context(), w, q)
}

// writeAsked writes the answer of an ask: the result, or 202 and the
// deadline while the question is pending.
func writeAsked(_ context.Context, w http.ResponseWriter, q *broker.Question) {
	writeAnswer(w, q, nil)
}

// writeWarned writes the answer of an ask as writeAsked does, with the
// warnings the broker gave when it was asked: in the 202 of a question
// still pending, and in the result of one that ended during the ask's
// wait (warnings.go).
func writeWarned(warnings []string) answerFunc {
	return func(_ context.Context, w http.ResponseWriter, q *broker.Question) {
		warnHeaders(w.Header(), q.ID, warnings)
		writeAnswer(w, q, warnings)
	}
}

func writeAnswer(w http.ResponseWriter, q *broker.Question, warnings []string) {
	if q.Status == broker.StatusPending {
		p := pendingBody{ID: q.ID, Status: q.Status, ExpiresAt: q.ExpiresAt, Snoozes: len(q.State.Snoozes), Warnings: warnings}
		writeJSON(w, http.StatusAccepted, p)
		return
	}
	if len(warnings) > 0 {
		writeJSON(w, http.StatusOK, warnedResult{Result: q.Result(), Warnings: warnings})
		return
	}
	writeJSON(w, http.StatusOK, q.Result())
}

// get returns a question; with ?wait=30s it long-polls while the question
// is pending.
func (s *Server) get(w http.ResponseWriter, r *http.Request, agent string) {
	id := r.PathValue("id")
	wait, ok := s.waitParam(w, r)
	if !ok {
		return
	}
	if wait > 0 {
		// Wait reads the question itself (after it starts listening for
		// the resolution) and renews its lease while it waits.
		s.wait(w, r, agent, id, wait, s.writeQuestion)
		return
	}
	q, err := s.b.Get(r.Context(), agent, id)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	s.b.RenewLease(r.Context(), q)
	s.writeQuestion(r.Context(), w, q)
}

// writeQuestion writes q as GET /v1/questions/{id} shows it, with its
// copies, read within 5 s.
func (s *Server) writeQuestion(ctx context.Context, w http.ResponseWriter, q *broker.Question) {
	view := questionView{Result: q.Result()}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var err error
	if view.Copies, err = s.b.CopiesOf(ctx, q); err != nil {
		writeBrokerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

// questionView is a question as GET /v1/questions/{id} shows it: its
// result and what became of each copy on the platforms.
type questionView struct {
	broker.Result
	Copies []broker.Copy `json:"copies"`
}

func (s *Server) waitParam(w http.ResponseWriter, r *http.Request) (time.Duration, bool) {
	v := r.URL.Query().Get("wait")
	if v == "" {
		return 0, true
	}
	d, err := broker.ParseDuration(v)
	if err != nil {
		if secs, err2 := strconv.Atoi(v); err2 == nil {
			d, err = time.Duration(secs)*time.Second, nil
		}
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", "wait: "+err.Error(), "wait")
		return 0, false
	}
	if d < 0 {
		writeError(w, http.StatusBadRequest, "invalid", "wait: must not be negative, got "+strconv.Quote(v), "wait")
		return 0, false
	}
	return min(d, s.cfg.MaxWait), true
}

// listBody is the answer of GET /v1/questions.
type listBody struct {
	Questions []broker.Result `json:"questions"`
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, agent string) {
	q := r.URL.Query()
	f := broker.Filter{Agent: agent, SessionID: q.Get("session_id"), Status: broker.Status(q.Get("status")), Limit: 100}
	if f.Status != "" && !f.Status.Valid() {
		writeError(w, http.StatusBadRequest, "invalid", "status: must be one of pending, answered, declined, cancelled, timed_out, unsupported; got "+strconv.Quote(string(f.Status)), "status")
		return
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, http.StatusBadRequest, "invalid", "limit: must be a whole number from 1 to 1000", "limit")
			return
		}
		f.Limit = n
	}
	qs, err := s.b.List(r.Context(), f)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	out := listBody{Questions: make([]broker.Result, 0, len(qs))}
	for _, q := range qs {
		out.Questions = append(out.Questions, q.Result())
	}
	writeJSON(w, http.StatusOK, out)
}

type cancelRequest struct {
	Reason string `json:"reason"`
}

// readCancel reads the optional {"reason": …} body of a cancel call.
func (s *Server) readCancel(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req cancelRequest
	if r.ContentLength == 0 {
		return "", true
	}
	if decode(w, r, s.cfg.MaxBody, &req) {
		return "", false
	}
	return req.Reason, true
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request, agent string) {
	reason, ok := s.readCancel(w, r)
	if !ok {
		return
	}
	q, err := s.b.Cancel(r.Context(), agent, r.PathValue("id"), reason)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, q.Result())
}

// sessionCancelBody is the answer of a session cancel.
type sessionCancelBody struct {
	Cancelled []broker.Result `json:"cancelled"`
}

func (s *Server) cancelSession(w http.ResponseWriter, r *http.Request, agent string) {
	reason, ok := s.readCancel(w, r)
	if !ok {
		return
	}
	qs, err := s.b.CancelSession(r.Context(), agent, r.PathValue("session_id"), reason)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	out := sessionCancelBody{Cancelled: make([]broker.Result, 0, len(qs))}
	for _, q := range qs {
		out.Cancelled = append(out.Cancelled, q.Result())
	}
	writeJSON(w, http.StatusOK, out)
}

// MarshalJSON writes the result's own JSON with "copies" added (the
// result marshals itself, which an embedding would otherwise inherit).
func (v questionView) MarshalJSON() ([]byte, error) {
	res, err := v.Result.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if len(res) < 2 || res[len(res)-1] != '}' {
		return nil, fmt.Errorf("api: a result is not a JSON object: %s", res)
	}
	copies, err := json.Marshal(v.Copies)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(res)+len(copies)+12)
	out = append(out, res[:len(res)-1]...)
	if len(res) > 2 {
		out = append(out, ',')
	}
	out = append(append(out, `"copies":`...), copies...)
	return append(out, '}'), nil
}
