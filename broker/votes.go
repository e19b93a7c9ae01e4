package broker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// amendAttempts bounds how often an amendment is rebuilt because another
// change of the same question came first.
const amendAttempts = 16

// amend builds a change of q's policy state with build and stores it with
// the store's compare-and-set, reading q again and rebuilding when another
// change came first. build returns a refusal instead of a change when the
// question as it stands refuses the action. A refusal is in the language
// of in's reader.
func (b *Broker) amend(ctx context.Context, in Inbound, q *Question, build func(q *Question) (Amendment, *Reply)) (*Question, *Reply) {
	for range amendAttempts {
		a, refused := build(q)
		if refused != nil {
			return q, refused
		}
		done, err := b.store.Amend(ctx, q.ID, q.State.Rev, a)
		if err == nil {
			b.known.forget(q.ID)
			b.noteScheduled(done)
			return done, nil
		}
		if !errors.Is(err, ErrConflict) {
			r, _ := b.resolveFailed(in, nil, err)
			return q, &r
		}
		if q, err = b.store.Get(ctx, q.ID); err != nil {
			r := refuse(ErrUnavailable, "%s", b.words(in, nil).T("refuse.record_failed"))
			return nil, &r
		}
		if q.Status != StatusPending {
			r, _ := b.resolveFailed(in, q, &ClosedError{Question: q})
			return q, &r
		}
	}
	r := refuse(ErrUnavailable, "%s", b.words(in, q).T("answer.too_busy", q.ID))
	return q, &r
}

// audit appends entries to q's audit log; a failure is logged, since the
// action it records stands or was refused either way.
func (b *Broker) audit(ctx context.Context, id string, entries ...AuditEntry) {
	if err := b.store.AddAudit(ctx, id, entries...); err != nil {
		b.log.Warn("audit entry not recorded", "question_id", id, "err", err)
	}
}

// The reasons of refused actions, as the audit log records them.
const (
	AuditNotResponder = "not_responder"
	AuditRequester    = "requester"
	AuditUnlinked     = "unlinked"
	AuditDuplicate    = "duplicate_vote"
	AuditAmbiguous    = "ambiguous"
	AuditNotAVote     = "not_a_vote"
	AuditNoSnooze     = "snooze_refused"
)

// refuseIn returns a refusal of in's action on q and records it in q's
// audit log with its reason (one of the Audit* reasons): say writes the
// text in English for the audit log and in the reader's language for
// the reply.
func (b *Broker) refuseIn(ctx context.Context, in Inbound, q *Question, kind error, reason string, say func(w *i18n.Printer) string) Reply {
	b.audit(ctx, q.ID, AuditEntry{At: b.now(), Kind: AuditRefused, By: in.Responder(), Reason: reason, Detail: say(english)})
	return Reply{Text: say(b.words(in, q)), Question: q, Err: kind}
}

// countsPeople reports whether q's policy speaks of people (a quorum, or
// no self-approval): then only accounts linked to a person may act on it.
func (q *Question) countsPeople() bool { return q.voting() || q.Policy.ForbidRequester }

// channelTitle is a channel's name as people write it: "Slack",
// "Telegram", "web inbox".
func channelTitle(ch string) string {
	switch ch {
	case "slack", "telegram", "discord":
		return strings.ToUpper(ch[:1]) + ch[1:]
	case WebChannel:
		return "web inbox"
	case "cli":
		return "command-line"
	case "text":
		return "text channel"
	}
	return ch
}

func (b *Broker) now() time.Time { return b.cfg.Now().UTC().Truncate(time.Millisecond) }

// refuseRequester refuses an answer by one of the people q is asked for,
// when its policy forbids them to approve it.
func (b *Broker) refuseRequester(ctx context.Context, in Inbound, q *Question) *Reply {
	if !q.Policy.ForbidRequester || !q.requester(in, b.cfg.People) {
		return nil
	}
	r := b.refuseIn(ctx, in, q, ErrForbidden, AuditRequester, func(w *i18n.Printer) string { return w.T("refuse.requester", q.ID) })
	return &r
}

// vote records in's vote on q (an answer a, or a deny with a reason) and
// resolves q when the votes reach its quorum.
//
// Only an option is a vote: a choice of options counts, and text beside
// it is the vote's note; text alone is a note on the person's standing
// vote, or refused with the options named when there is none.
func (b *Broker) vote(ctx context.Context, in Inbound, q *Question, a *Answer, deny bool, reason string) Reply {
	by := *in.Responder()
	v := Vote{By: by, Deny: deny, Reason: reason, Answer: a, At: b.now()}
	if a != nil {
		if len(a.Selected) == 0 {
			return b.note(ctx, in, q, a.CustomText, false)
		}
		v.Choice = strings.Join(a.Selected, ", ")
		v.Note = a.CustomText
		v.Deny = isDeny(*a)
	}
	if v.Deny && a == nil {
		v.Choice = "Decline"
	}
	changed := false
	q, refused := b.amend(ctx, in, q, func(q *Question) (Amendment, *Reply) {
		st := clonedState(q.State)
		k := voteOf(st.Votes, by)
		entry := AuditEntry{At: v.At, Kind: AuditVote, By: &by, Choice: v.Choice, Detail: cmp.Or(reason, v.Note)}
		changed = false
		switch {
		case k >= 0 && st.Votes[k].Choice == v.Choice && st.Votes[k].Deny == v.Deny && v.Note == "":
			r := b.refuseIn(ctx, in, q, ErrConflict, AuditDuplicate, func(w *i18n.Printer) string { return w.T("refuse.duplicate_vote", v.Choice, q.ID) })
			return Amendment{}, &r
		case k >= 0:
			entry.Kind, entry.Detail = AuditVoteChange, "was "+st.Votes[k].Choice
			st.Votes[k] = v
			changed = true
		default:
			st.Votes = append(st.Votes, v)
		}
		return Amendment{State: st, Audit: []AuditEntry{entry}}, nil
	})
	if refused != nil {
		return *refused
	}
	q, err := b.settleVotes(ctx, q)
	var closed *ClosedError
	if errors.As(err, &closed) {
		// Another vote resolved the question first, counting this one.
		q, err = closed.Question, nil
	}
	if err != nil {
		r, _ := b.resolveFailed(in, q, err)
		return r
	}
	w := b.words(in, q)
	pending, quorum := "reply.vote", "reply.vote_quorum"
	if changed {
		pending, quorum = "reply.vote_changed", "reply.vote_changed_q"
	}
	switch q.Status {
	case StatusPending:
		return Reply{OK: true, Text: w.T(pending, v.Choice, votesText(w, q)), Question: q}
	case StatusAnswered:
		return Reply{OK: true, Text: w.T(quorum, v.Choice, answerText(w, q)), Question: q}
	}
	ended := "reply.vote_closed"
	if changed {
		ended = "reply.vote_changed_closed"
	}
	return Reply{OK: true, Text: w.T(ended, v.Choice, w.T("status."+string(q.Status))), Question: q}
}

// settleVotes resolves q when its votes reach the quorum, with a
// resolution conditional on the votes it counted: a vote recorded
// meanwhile makes it count again. Without a quorum it shows the votes on
// every copy and returns q.
func (b *Broker) settleVotes(ctx context.Context, q *Question) (*Question, error) {
	for range amendAttempts {
		r, ok := tally(q)
		if !ok {
			b.updateCopies(q)
			return q, nil
		}
		rev := q.State.Rev
		r.IfRev = &rev
		done, err := b.Resolve(ctx, q.ID, r)
		if !errors.Is(err, ErrConflict) {
			return done, err
		}
		if q, err = b.store.Get(ctx, q.ID); err != nil {
			return nil, err
		}
		if q.Status != StatusPending {
			return nil, &ClosedError{Question: q}
		}
	}
	return nil, fmt.Errorf("broker: settle votes of %s: votes kept arriving: %w", q.ID, ErrUnavailable)
}

// tally returns the resolution q's votes call for, if any: declined when
// the deny votes reach the deny quorum, answered when as many voters as
// the quorum chose the same answer.
func tally(q *Question) (Resolution, bool) {
	var denies []Vote
	counts := map[string][]Vote{}
	for _, v := range q.State.Votes {
		if v.Deny {
			denies = append(denies, v)
			continue
		}
		counts[v.Choice] = append(counts[v.Choice], v)
	}
	if len(denies) >= q.Policy.denyQuorum() {
		var reasons []string
		for _, v := range denies {
			if v.Reason != "" {
				reasons = append(reasons, v.Reason)
			}
		}
		by := denies[0].By
		return Resolution{Status: StatusDeclined, AnsweredBy: &by, Reason: strings.Join(reasons, "; ")}, true
	}
	for _, v := range q.State.Votes {
		if vs := counts[v.Choice]; !v.Deny && len(vs) >= q.Policy.quorum() && v.Answer != nil {
			by := vs[0].By
			a := *vs[0].Answer
			return Resolution{Status: StatusAnswered, Answers: map[string]Answer{q.Prompts[0].Question: a}, AnsweredBy: &by}, true
		}
	}
	return Resolution{}, false
}

// voteOf returns the index of by's vote, or -1: the vote of the same
// person, from any of their accounts, or of the same account.
func voteOf(votes []Vote, by Responder) int {
	for k, v := range votes {
		if samePerson(v.By, by) {
			return k
		}
	}
	return -1
}

// samePerson reports whether a and b are one person: the same person of
// the directory, or, for accounts linked to nobody, the same account.
func samePerson(a, b Responder) bool {
	if a.Person != nil || b.Person != nil {
		return a.Person != nil && b.Person != nil && a.Person.ID == b.Person.ID
	}
	return a.Channel == b.Channel && a.User == b.User
}

func clonedState(s PolicyState) PolicyState {
	c := s
	c.Votes = append([]Vote(nil), s.Votes...)
	c.Snoozes = append([]Snooze(nil), s.Snoozes...)
	c.Escalations = append([]Escalation(nil), s.Escalations...)
	c.Notes = append([]Note(nil), s.Notes...)
	return c
}

// VotesText says where the votes of a pending question with a quorum
// stand: "1 of 2: Allow by @ana", "2 of 3: Allow by @ana, @bo; Deny by
// @cy"; "" without a quorum.
func VotesText(q *Question) string { return votesText(english, q) }

func votesText(w *i18n.Printer, q *Question) string {
	if !q.voting() {
		return ""
	}
	if len(q.State.Votes) == 0 {
		return w.T("votes.none", 0, q.Policy.quorum())
	}
	var order []string
	who := map[string][]string{}
	best := 0
	for _, v := range q.State.Votes {
		if _, ok := who[v.Choice]; !ok {
			order = append(order, v.Choice)
		}
		who[v.Choice] = append(who[v.Choice], whoText(w, &v.By))
		if !v.Deny {
			best = max(best, len(who[v.Choice]))
		}
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = w.T("votes.choice_by", c, strings.Join(who[c], ", "))
	}
	return w.T("votes.tally", best, q.Policy.quorum(), strings.Join(parts, "; "))
}
