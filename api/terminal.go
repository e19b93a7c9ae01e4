package api

import (
	"net/http"

	"github.com/askbridge/askbridge/broker"
)

// terminalRequest is the body of POST /v1/questions/{id}/answer: the
// answers a person gave at the agent's own screen, keyed by question
// text, and the client they used.
type terminalRequest struct {
	Answers map[string]broker.Answer `json:"answers"`
	Client  string                   `json:"client"`
}

// answerAtTerminal records the answer a person gave at the agent's own
// screen (bridge mcp --race-local): the question ends answered by the
// terminal and every chat copy is edited closed. A closed question is a
// 409 with its state, as for a cancel.
func (s *Server) answerAtTerminal(w http.ResponseWriter, r *http.Request, agent string) {
	var req terminalRequest
	if decode(w, r, s.cfg.MaxBody, &req) {
		return
	}
	q, err := s.b.AnswerAtTerminal(r.Context(), agent, r.PathValue("id"), req.Client, req.Answers)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, q.Result())
}
