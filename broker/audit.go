package broker

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The kinds of audit entries.
const (
	// AuditAsked is the ask: agent, route, targets, requested_by, policy.
	AuditAsked = "asked"
	// AuditPosted is one copy of the question posted (Target).
	AuditPosted     = "posted"
	AuditVote       = "vote"
	AuditVoteChange = "vote_changed"
	AuditRefused    = "refused"
	AuditSnoozed    = "snoozed"
	AuditEscalated  = "escalated"
	AuditNote       = "note"
	// AuditPromptAnswered is the answer to one prompt of a dialog
	// (Prompt, 1-based).
	AuditPromptAnswered = "prompt_answered"
	AuditResolved       = "resolved"
)

// DefaultAuditRetention is how long audit entries are kept when the
// configuration sets no audit.retention: long past their questions, which
// go after the store's retention.
const DefaultAuditRetention = 400 * 24 * time.Hour

// AuditEntry is one thing that happened to a question: the ask, a posted
// copy, a vote, a refusal, a snooze, an escalation, a note, the answer to
// one prompt of a dialog, the resolution; with who, when and through
// which channel. The store that appends an entry fills Question, Agent,
// Seq, Prev and Hash (SealAudit), which chain the entries of a question
// so that an entry changed, removed or moved afterwards shows
// (VerifyAudit).
//
// Its JSON is what the chain's hash covers: a field added here must be
// left out of the JSON when empty (omitempty), so that the entries
// already stored keep their hash.
type AuditEntry struct {
	// Question is the question's id; Agent is the agent that asked it.
	Question string `json:"question"`
	Agent    string `json:"agent,omitempty"`
	// Seq numbers the entries of a question from 1, in the order
	// appended.
	Seq    int64      `json:"seq"`
	At     time.Time  `json:"at"`
	Kind   string     `json:"kind"`
	By     *Responder `json:"by,omitempty"`
	Choice string     `json:"choice,omitempty"`
	Detail string     `json:"detail,omitempty"`
	// Reason is a short code for a refusal: "not_responder",
	// "requester", "unlinked", "duplicate_vote", "ambiguous",
	// "not_a_vote".
	Reason string `json:"reason,omitempty"`
	// Status is the outcome of a resolution entry.
	Status Status `json:"status,omitempty"`
	// ExpiresAt is the new deadline of a snooze.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Route, Targets, RequestedBy and Policy are those of the ask.
	Route       string   `json:"route,omitempty"`
	Targets     []Target `json:"targets,omitempty"`
	RequestedBy []string `json:"requested_by,omitempty"`
	Policy      *Policy  `json:"policy,omitempty"`
	// Target is where a posted copy went.
	Target *Target `json:"target,omitempty"`
	// Prompt is the prompt (1-based) a dialog's per-prompt answer is for.
	Prompt int `json:"prompt,omitempty"`
	// Voters are every voter of the outcome of a question with a quorum
	// (a resolution entry).
	Voters []Responder `json:"voters,omitempty"`
	// Prev is the Hash of the entry before (empty for the first), and
	// Hash the hex SHA-256 of this entry (SealAudit). Hash stays last:
	// SealAudit writes it after the rest.
	Prev string `json:"prev,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// AuditFilter selects audit entries for an export (AuditLog.AuditSince):
// those at or after Since, of Agent's questions (every agent's when
// empty), oldest first by time, question and seq, at most Limit.
// AfterQuestion and AfterSeq, when AfterQuestion is set, resume after
// that entry: the last one of the page before, whose time is Since.
type AuditFilter struct {
	Since         time.Time
	Agent         string
	AfterQuestion string
	AfterSeq      int64
	Limit         int
}

// MaxAuditPage bounds AuditFilter.Limit; DefaultAuditPage is the limit of
// a filter that sets none.
const (
	MaxAuditPage     = 5000
	DefaultAuditPage = 500
)

// Check checks f: a time to start from, a limit within MaxAuditPage, and
// a seq of 1 or more to resume after. Limit 0 becomes DefaultAuditPage.
func (f *AuditFilter) Check() error {
	switch {
	case f.Since.IsZero():
		return fieldErr("since", "is missing: give a time (RFC 3339) or a duration back from now (24h, 7d)")
	case f.Limit < 0 || f.Limit > MaxAuditPage:
		return fieldErr("limit", "%d is outside 1–%d", f.Limit, MaxAuditPage)
	case f.AfterQuestion != "" && f.AfterSeq < 1:
		return fieldErr("after", "seq %d is not 1 or more", f.AfterSeq)
	case f.AfterQuestion != "" && !ValidID(f.AfterQuestion):
		return fieldErr("after", "%q is not a question id", f.AfterQuestion)
	}
	if f.Limit == 0 {
		f.Limit = DefaultAuditPage
	}
	f.Since = f.Since.UTC().Truncate(time.Millisecond)
	return nil
}

// Audit returns what happened to the agent's question, oldest first: its
// ask, the copies posted, every vote, refusal, snooze, escalation and
// note, the answers to a dialog's prompts, and its resolution, each
// sealed by the store (VerifyAudit). The trail outlives the question: a
// question purged after the store's retention still has its entries,
// which name its agent. Another agent's question reads as unknown
// (ErrNotFound).
func (b *Broker) Audit(ctx context.Context, agent, id string) ([]AuditEntry, error) {
	log, err := b.AuditOf(ctx, id)
	if err != nil {
		return nil, err
	}
	owner := ""
	for _, e := range log {
		if e.Agent != "" {
			owner = e.Agent
			break
		}
	}
	if owner == "" {
		// Entries written before they named the agent: the question
		// says whose it is.
		if _, err := b.Get(ctx, agent, id); err != nil {
			return nil, err
		}
		return log, nil
	}
	if owner != agent {
		return nil, fmt.Errorf("%w: there is no question %s", ErrNotFound, id)
	}
	return log, nil
}

// AuditOf returns the trail of question id whatever its agent, for a
// reader of every agent's trails (the API's audit key); Audit is the
// agent's own read.
func (b *Broker) AuditOf(ctx context.Context, id string) ([]AuditEntry, error) {
	notFound := fmt.Errorf("%w: there is no question %s", ErrNotFound, id)
	if !ValidID(id) {
		return nil, notFound
	}
	log, err := b.store.Audit(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, notFound
	}
	return log, err
}

// AuditSince exports the audit entries f selects (every agent's when
// f.Agent is empty): the caller decides whose entries a key may read.
func (b *Broker) AuditSince(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	return b.store.AuditSince(ctx, f)
}
