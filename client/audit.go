package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// AuditEntry is one thing that happened to a question under a team
// policy: a vote, a refusal, a snooze, an escalation or the resolution.
type AuditEntry struct {
	At        time.Time  `json:"at"`
	Kind      string     `json:"kind"`
	By        *Responder `json:"by,omitempty"`
	Choice    string     `json:"choice,omitempty"`
	Detail    string     `json:"detail,omitempty"`
	Status    Status     `json:"status,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// Audit returns the audit log of one of the agent's questions, oldest
// first (GET /v1/questions/{id}/audit).
func (c *Client) Audit(ctx context.Context, id string) ([]AuditEntry, error) {
	var out struct {
		Entries []AuditEntry `json:"entries"`
	}
	if _, err := c.do(ctx, http.MethodGet, "/v1/questions/"+url.PathEscape(id)+"/audit", nil, &out); err != nil {
		return nil, err
	}
	return out.Entries, nil
}
