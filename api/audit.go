package api

import (
	"net/http"

	"github.com/askbridge/askbridge/broker"
)

// auditBody is the answer of GET /v1/questions/{id}/audit.
type auditBody struct {
	ID      string              `json:"id"`
	Entries []broker.AuditEntry `json:"entries"`
}

// audit lists what happened to one of the agent's questions: votes,
// refusals, snoozes, escalations and the resolution.
func (s *Server) audit(w http.ResponseWriter, r *http.Request, agent string) {
	id := r.PathValue("id")
	entries, err := s.b.Audit(r.Context(), agent, id)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, auditBody{ID: id, Entries: entries})
}
