package api

import (
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// wait long-polls the agent's question id for at most d (see
// broker.Wait) and returns it as it then stands. On an error it writes
// the error answer and returns nil; an internal error is logged with its
// cause, which the answer does not carry.
func (s *Server) wait(w http.ResponseWriter, r *http.Request, agent, id string, d time.Duration) *broker.Question {
	ctx, cancel := s.waitContext(r, d)
	q, err := s.b.Wait(ctx, agent, id)
	cancel()
	if err != nil {
		if StatusOf(err).Status == http.StatusInternalServerError {
			s.log.Error("long-poll", "question_id", id, "err", err)
		}
		writeBrokerError(w, err)
		return nil
	}
	return q
}
