package broker

import (
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The entries of the steps every question takes are built here, once,
// and appended by the stores in the same atomic step as the change they
// record: Create appends AskedAudit and a PostedAudit per in-process copy,
// AddMessage a PostedAudit, Resolve ResolvedAudit. An action and its
// entry are stored together or not at all.

// maxAskedDetail bounds the prompts' text an ask's entry keeps.
const maxAskedDetail = 500

// AskedAudit is the entry of q's ask, as q is created: the agent, the
// route and its targets, the people it is asked for, its policy (when it
// has one) and, in Detail, the text of its prompts, so that the trail
// says what was asked after the question is gone.
func AskedAudit(q *Question) AuditEntry {
	e := AuditEntry{
		At: q.CreatedAt, Kind: AuditAsked, Question: q.ID, Agent: q.Agent,
		Route: q.Route, Targets: q.Targets, RequestedBy: q.RequestedBy,
	}
	if !reflect.ValueOf(q.Policy).IsZero() {
		p := q.Policy
		e.Policy = &p
	}
	texts := make([]string, len(q.Prompts))
	for i, p := range q.Prompts {
		texts[i] = p.Question
	}
	e.Detail = strings.Join(texts, " / ")
	if len(e.Detail) > maxAskedDetail {
		e.Detail = truncateUTF8(e.Detail, maxAskedDetail-len("…")) + "…"
	}
	return e
}

// CreatedAudit is what Create appends for new question q: its ask, then
// a posted copy at each of its in-process targets (inProcess, Create's
// argument, in the order of q.Targets), which Create records as posted
// with the question.
func CreatedAudit(q *Question, inProcess []Target) []AuditEntry {
	out := make([]AuditEntry, 1, 1+len(inProcess))
	out[0] = AskedAudit(q)
	for _, t := range q.Targets {
		if slices.Contains(inProcess, t) {
			out = append(out, PostedAudit(q.ID, q.Agent, MessageRef{Channel: t.Channel, Chat: t.Chat, MessageID: q.ID, PostedAt: q.CreatedAt}))
		}
	}
	return out
}

// PostedAudit is the entry of a copy of question id posted as m: its
// target and, in Detail, the platform's message id.
func PostedAudit(id, agent string, m MessageRef) AuditEntry {
	at := m.PostedAt
	if at.IsZero() {
		at = time.Now()
	}
	t := m.Target()
	return AuditEntry{At: at, Kind: AuditPosted, Question: id, Agent: agent, Target: &t, Detail: m.MessageID}
}

// ResolvedAudit is the entry of q's resolution, q as resolved: the
// status, who ended it, the choice, every voter of a quorum, and the
// reason of a decline, cancellation or unsupported question.
func ResolvedAudit(q *Question) AuditEntry {
	e := AuditEntry{
		At: q.ResolvedAt, Kind: AuditResolved, Question: q.ID, Agent: q.Agent,
		By: q.AnsweredBy, Status: q.Status, Detail: q.Reason, Voters: q.voters(),
	}
	if len(q.Answers) > 0 {
		e.Choice = AnswerText(q)
	}
	return e
}

// ResolvedAuditOf is ResolvedAudit of q once resolved with r, for a
// store that builds the entry before its compare-and-set: q as the store
// read it, pending, and r applied the way every store applies it.
func ResolvedAuditOf(q *Question, r Resolution) AuditEntry {
	c := *q
	c.Status, c.Answers, c.Fallback, c.Reason = r.Status, r.Answers, r.Fallback, r.Reason
	c.NotReady, c.AnsweredBy, c.ResolvedAt = r.NotReady, r.AnsweredBy, r.ResolvedAt
	return ResolvedAudit(&c)
}

// truncateUTF8 returns the longest prefix of s of at most n bytes that
// ends on a character boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// PromptAnsweredAudit is the entry of the answer a, by in, to prompt i
// (0-based) of a dialog.
func PromptAnsweredAudit(in Inbound, i int, a Answer, at time.Time) AuditEntry {
	return AuditEntry{At: at, Kind: AuditPromptAnswered, By: in.Responder(), Prompt: i + 1, Choice: AnswerValue(a)}
}
