package api

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// auditBody is the answer of GET /v1/questions/{id}/audit: the trail,
// and whether its chain holds (broker.VerifyAudit); when it does not,
// Problem names the first entry changed, removed or moved.
type auditBody struct {
	ID       string              `json:"id"`
	Entries  []broker.AuditEntry `json:"entries"`
	Verified bool                `json:"verified"`
	Problem  string              `json:"problem,omitempty"`
}

// auditReader authenticates a reader of audit trails: the holder of the
// audit key (Config.AuditKey), who reads every agent's (all), or an
// agent, who reads its own questions'.
func (s *Server) auditReader(h func(w http.ResponseWriter, r *http.Request, agent string, all bool)) http.HandlerFunc {
	agent := s.agent(func(w http.ResponseWriter, r *http.Request, name string) { h(w, r, name, false) })
	return func(w http.ResponseWriter, r *http.Request) {
		if s.auditKey != nil {
			if _, ok := match([]hashedKey{{sum: *s.auditKey}}, r.Header); ok {
				h(w, r, "", true)
				return
			}
		}
		agent(w, r)
	}
}

// hashAuditKey returns the digest of the audit key, or nil for none.
func hashAuditKey(key string) *[32]byte {
	if key == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(key))
	return &sum
}

// audit lists what happened to one question, its chain checked: one of
// the agent's, or any with the audit key.
func (s *Server) audit(w http.ResponseWriter, r *http.Request, agent string, all bool) {
	id := r.PathValue("id")
	var entries []broker.AuditEntry
	var err error
	if all {
		entries, err = s.b.AuditOf(r.Context(), id)
	} else {
		entries, err = s.b.Audit(r.Context(), agent, id)
	}
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	ok, _, why := broker.VerifyAudit(entries)
	writeJSON(w, http.StatusOK, auditBody{ID: id, Entries: entries, Verified: ok, Problem: why})
}

// auditExport streams audit entries from a time on as JSON lines (GET
// /v1/audit): ?since= a time (RFC 3339) or a duration back from now
// ("24h", "7d"; default 24h), ?limit= up to broker.MaxAuditPage
// (broker.DefaultAuditPage), ?after=ID:SEQ to resume after the last entry
// of a page (with since set to its time), and, with the audit key only,
// ?agent= for one agent's. An agent key reads its own questions' entries.
func (s *Server) auditExport(w http.ResponseWriter, r *http.Request, agent string, all bool) {
	f, err := auditFilter(r.URL.Query(), s.b.Now())
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	if !all {
		if f.Agent != "" && f.Agent != agent {
			writeError(w, http.StatusForbidden, "forbidden", "an agent key reads its own questions' audit entries: leave agent out, or use the audit key (audit.key_env)", "agent")
			return
		}
		f.Agent = agent
	}
	entries, err := s.b.AuditSince(r.Context(), f)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return // the client went away
		}
	}
}

// auditFilter reads the query of GET /v1/audit; every error names its
// parameter.
func auditFilter(q url.Values, now time.Time) (broker.AuditFilter, error) {
	for k := range q {
		switch k {
		case "since", "limit", "after", "agent":
		default:
			return broker.AuditFilter{}, &broker.FieldError{Field: k, Message: "is not a parameter of GET /v1/audit (since, limit, after, agent)"}
		}
	}
	f := broker.AuditFilter{Agent: q.Get("agent")}
	since := q.Get("since")
	if since == "" {
		since = "24h"
	}
	if t, err := time.Parse(time.RFC3339Nano, since); err == nil {
		f.Since = t
	} else if d, err := broker.ParseDuration(since); err == nil && d > 0 {
		f.Since = now.Add(-d)
	} else {
		return f, &broker.FieldError{Field: "since", Message: fmt.Sprintf("%q is neither a time (RFC 3339, 2026-11-29T14:00:00Z) nor a duration back from now (24h, 7d)", since)}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, &broker.FieldError{Field: "limit", Message: fmt.Sprintf("%q is not a number from 1 to %d", v, broker.MaxAuditPage)}
		}
		f.Limit = n
	}
	if v := q.Get("after"); v != "" {
		id, seq, ok := strings.Cut(v, ":")
		n, err := strconv.ParseInt(seq, 10, 64)
		if !ok || err != nil {
			return f, &broker.FieldError{Field: "after", Message: fmt.Sprintf("%q is not ID:SEQ, the question and seq of the last entry read (k7m2qx:3)", v)}
		}
		f.AfterQuestion, f.AfterSeq = id, n
	}
	return f, f.Check()
}
