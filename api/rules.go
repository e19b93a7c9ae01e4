package api

import (
	"net/http"
	"strconv"

	"github.com/askbridge/askbridge/broker"
)

// rulesBody is the answer of GET /v1/rules.
type rulesBody struct {
	Rules []broker.Rule `json:"rules"`
}

// ruleBody is the answer that carries one rule.
type ruleBody struct {
	Rule *broker.Rule `json:"rule"`
}

// The approval rules' endpoints (broker/rules.go). An agent key reads
// the rules in force for its agent (its own and every agent's), matches
// its calls against them, makes a rule from a person's "Always allow",
// revokes its own rules, and records a call a rule allowed.
func (s *Server) rulesRoutes() {
	s.mux.HandleFunc("GET /v1/rules", s.agent(s.listRules))
	s.mux.HandleFunc("POST /v1/rules", s.agent(s.addRule))
	s.mux.HandleFunc("DELETE /v1/rules/{id}", s.agent(s.revokeRule))
	s.mux.HandleFunc("POST /v1/rules/match", s.agent(s.matchRule))
	s.mux.HandleFunc("POST /v1/rules/allowed", s.agent(s.askAllowed))
}

// listRules lists the rules in force for the agent; ?revoked=true adds
// the revoked ones.
func (s *Server) listRules(w http.ResponseWriter, r *http.Request, agent string) {
	revoked := false
	if v := r.URL.Query().Get("revoked"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid", "revoked: "+strconv.Quote(v)+" is not true or false", "revoked")
			return
		}
		revoked = b
	}
	rules, err := s.b.Rules(r.Context(), agent, revoked)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	if rules == nil {
		rules = []broker.Rule{}
	}
	writeJSON(w, http.StatusOK, rulesBody{Rules: rules})
}

// addRule makes a rule from a person's answer (broker.RuleRequest): 201
// with the new rule, 200 with the rule the question made before.
func (s *Server) addRule(w http.ResponseWriter, r *http.Request, agent string) {
	var req broker.RuleRequest
	if decode(w, r, s.cfg.MaxBody, &req) {
		return
	}
	rule, created, err := s.b.AddRuleFromAnswer(r.Context(), agent, req)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, ruleBody{Rule: rule})
}

// revokeRule revokes one of the agent's own rules; any other id is a
// 404. The revocation names the agent's key.
func (s *Server) revokeRule(w http.ResponseWriter, r *http.Request, agent string) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		writeError(w, http.StatusNotFound, "not_found", "there is no rule "+strconv.Quote(r.PathValue("id")), "")
		return
	}
	rule, err := s.b.RevokeRule(r.Context(), agent, id, broker.Responder{Channel: "api", User: agent})
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ruleBody{Rule: rule})
}

// matchRule answers 200 with the rule that allows the call, or 404 when
// none does.
func (s *Server) matchRule(w http.ResponseWriter, r *http.Request, agent string) {
	var call broker.ToolCall
	if decode(w, r, s.cfg.MaxBody, &call) {
		return
	}
	rule, err := s.b.MatchCall(r.Context(), agent, call)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	if rule == nil {
		writeError(w, http.StatusNotFound, "not_found", "no rule allows this call: ask people", "")
		return
	}
	writeJSON(w, http.StatusOK, ruleBody{Rule: rule})
}

// askAllowed records a call a rule allows (broker.RuleAsk): 200 with the
// question's result, answered by the rule.
func (s *Server) askAllowed(w http.ResponseWriter, r *http.Request, agent string) {
	var req broker.RuleAsk
	if decode(w, r, s.cfg.MaxBody, &req) {
		return
	}
	q, _, err := s.b.AskAllowedByRule(r.Context(), agent, &req)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, q.Result())
}
