package discordfake

import (
	"encoding/json"
	"net/http"
)

// byToken finds the interaction whose webhook token is token; s.mu is held.
func (s *Server) byToken(app, token string) *interaction {
	if app != s.AppID {
		return nil
	}
	for _, in := range s.interactions {
		if in.token == token {
			return in
		}
	}
	return nil
}

// editOriginal is PATCH /webhooks/{app}/{token}/messages/@original: after
// a deferred update (type 6) it edits the message the component is on;
// after a deferred reply (type 5) it fills in that reply.
func (s *Server) editOriginal(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.PathValue("message") != "@original" {
		writeError(w, http.StatusNotFound, "Unknown Message", 10008)
		return
	}
	b, ok := decodeMessage(w, body)
	if !ok {
		return
	}
	resp, _ := ParseResponse(mustJSON(map[string]any{"type": 0, "data": json.RawMessage(body)}))
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.byToken(r.PathValue("app"), r.PathValue("token"))
	if in == nil || !in.responded {
		writeError(w, http.StatusNotFound, "Unknown Webhook", 10015)
		return
	}
	switch in.response.Type {
	case ResponseDeferredEdit, ResponseUpdateMessage:
		m, ok := s.messages[in.messageID]
		if !ok {
			writeError(w, http.StatusNotFound, "Unknown Message", 10008)
			return
		}
		s.applyEdit(m, b)
		writeJSON(w, http.StatusOK, m.json())
	default:
		in.original = &resp
		flags := 0
		if in.response.Data != nil {
			flags = in.response.Data.Flags
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": s.snowflakeLocked(), "content": resp.Content(), "flags": flags})
	}
}

// followUp is POST /webhooks/{app}/{token}: a follow-up message.
func (s *Server) followUp(w http.ResponseWriter, r *http.Request, body []byte) {
	var b messageBody
	if err := json.Unmarshal(body, &b); err != nil || b.check() != nil {
		writeError(w, http.StatusBadRequest, "Invalid Form Body", 50035)
		return
	}
	resp, _ := ParseResponse(mustJSON(map[string]any{"type": ResponseMessage, "data": json.RawMessage(body)}))
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.byToken(r.PathValue("app"), r.PathValue("token"))
	if in == nil || !in.responded {
		writeError(w, http.StatusNotFound, "Unknown Webhook", 10015)
		return
	}
	in.followups = append(in.followups, resp)
	w.WriteHeader(http.StatusNoContent)
}

// Original returns the edit of a deferred reply to an interaction.
func (s *Server) Original(id string) (Response, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.interactions[id]; ok && in.original != nil {
		return *in.original, true
	}
	return Response{}, false
}

// FollowUps returns the follow-up messages sent for an interaction.
func (s *Server) FollowUps(id string) []Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.interactions[id]; ok {
		return append([]Response(nil), in.followups...)
	}
	return nil
}
