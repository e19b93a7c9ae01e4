package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// AuditEntry is one thing that happened to a question: the ask, a posted
// copy, a vote, a refusal, a snooze, an escalation, a note, the answer to
// one prompt of a dialog, the resolution. The bridge seals each entry
// with the SHA-256 of the one before (Prev) and its own (Hash), so that
// an entry changed, removed or moved afterwards shows (docs/policies.md).
type AuditEntry struct {
	// Question and Agent name the question and the agent that asked it;
	// Seq numbers its entries from 1.
	Question  string     `json:"question"`
	Agent     string     `json:"agent,omitempty"`
	Seq       int64      `json:"seq"`
	At        time.Time  `json:"at"`
	Kind      string     `json:"kind"`
	By        *Responder `json:"by,omitempty"`
	Choice    string     `json:"choice,omitempty"`
	Detail    string     `json:"detail,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	Status    Status     `json:"status,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Route, Targets, RequestedBy and Policy are the ask's (Policy as
	// the bridge wrote it: quorum, snooze...).
	Route       string          `json:"route,omitempty"`
	Targets     []Target        `json:"targets,omitempty"`
	RequestedBy []string        `json:"requested_by,omitempty"`
	Policy      json.RawMessage `json:"policy,omitempty"`
	// Target is where a posted copy went; Prompt the prompt (1-based) a
	// dialog's answer is for; Voters every voter of a quorum's outcome.
	Target *Target     `json:"target,omitempty"`
	Prompt int         `json:"prompt,omitempty"`
	Voters []Responder `json:"voters,omitempty"`
	Prev   string      `json:"prev,omitempty"`
	Hash   string      `json:"hash,omitempty"`
}

// Target is a place a question is posted to: a channel and, on chat
// platforms, a chat in it.
type Target struct {
	Channel string `json:"channel"`
	Chat    string `json:"chat,omitempty"`
}

// AuditLog is a question's audit trail with the bridge's check of its
// chain: Verified, or Problem naming the first entry changed, removed or
// moved.
type AuditLog struct {
	ID       string       `json:"id"`
	Entries  []AuditEntry `json:"entries"`
	Verified bool         `json:"verified"`
	Problem  string       `json:"problem,omitempty"`
}

// AuditLog returns the audit trail of a question, oldest first, checked
// (GET /v1/questions/{id}/audit): one of the agent's, or any question's
// with the audit key. The trail outlives the question.
func (c *Client) AuditLog(ctx context.Context, id string) (*AuditLog, error) {
	var out AuditLog
	if _, err := c.do(ctx, http.MethodGet, "/v1/questions/"+url.PathEscape(id)+"/audit", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Audit returns the entries of the audit trail of a question, oldest
// first (see AuditLog).
func (c *Client) Audit(ctx context.Context, id string) ([]AuditEntry, error) {
	log, err := c.AuditLog(ctx, id)
	if err != nil {
		return nil, err
	}
	return log.Entries, nil
}

// AuditQuery selects the entries AuditSince reads.
type AuditQuery struct {
	// Since is the time to read from.
	Since time.Time
	// Agent keeps one agent's entries; only the audit key may name
	// another agent than its own.
	Agent string
	// PageSize is how many entries one request reads (the server's
	// default, 500, when zero).
	PageSize int
}

// AuditSince reads the audit entries recorded since q.Since, oldest
// first, page by page (GET /v1/audit), and calls each with every one
// until each returns an error, which AuditSince returns, or none is
// left. An agent key reads its own questions' entries; the audit key
// every agent's.
func (c *Client) AuditSince(ctx context.Context, q AuditQuery, each func(AuditEntry) error) error {
	v := url.Values{}
	v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	if q.Agent != "" {
		v.Set("agent", q.Agent)
	}
	if q.PageSize > 0 {
		v.Set("limit", strconv.Itoa(q.PageSize))
	}
	for {
		n, last, err := c.auditPage(ctx, v, each)
		if err != nil {
			return err
		}
		if n == 0 || (q.PageSize > 0 && n < q.PageSize) || (q.PageSize == 0 && n < defaultAuditPage) {
			return nil
		}
		v.Set("since", last.At.UTC().Format(time.RFC3339Nano))
		v.Set("after", last.Question+":"+strconv.FormatInt(last.Seq, 10))
	}
}

// defaultAuditPage is the server's page size when the query sets none.
const defaultAuditPage = 500

// auditPage reads one page of GET /v1/audit into each; it returns how
// many entries it read and the last.
func (c *Client) auditPage(ctx context.Context, v url.Values, each func(AuditEntry) error) (int, AuditEntry, error) {
	path := "/v1/audit?" + v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, AuditEntry{}, fmt.Errorf("askbridge: %w", err)
	}
	req.Header.Set("Accept", "application/x-ndjson")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, AuditEntry{}, fmt.Errorf("askbridge: GET /v1/audit: %w", ctx.Err())
		}
		return 0, AuditEntry{}, &ConnError{Server: c.base, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, AuditEntry{}, readAPIError(resp)
	}
	dec := json.NewDecoder(resp.Body)
	n := 0
	var last AuditEntry
	for {
		var e AuditEntry
		if err := dec.Decode(&e); errors.Is(err, io.EOF) {
			return n, last, nil
		} else if err != nil {
			return n, last, fmt.Errorf("askbridge: GET /v1/audit: entry %d: %w", n+1, err)
		}
		if err := each(e); err != nil {
			return n, last, err
		}
		n++
		last = e
	}
}
