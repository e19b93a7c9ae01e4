package broker

import (
	"context"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// snooze moves the deadline of question id by its policy's snooze, for
// in's user, never past the longest deadline the policy allows.
func (b *Broker) snooze(ctx context.Context, in Inbound, id string) Reply {
	q, refused := b.authorizeAct(ctx, in, id)
	if refused != nil {
		return *refused
	}
	sp := q.Policy.Snooze
	if sp == nil {
		return b.refuseIn(ctx, in, q, ErrInvalid, AuditNoSnooze, func(w *i18n.Printer) string { return w.T("reply.snooze_none", q.ID) })
	}
	by := *in.Responder()
	loc := b.locationOf(in)
	q, refused = b.amend(ctx, in, q, func(q *Question) (Amendment, *Reply) {
		now := b.now()
		limit := q.CreatedAt.Add(q.Policy.longest())
		switch {
		case !now.Before(q.ExpiresAt):
			r := Reply{Text: closedText(b.words(in, q), q, loc), Question: q, Err: ErrClosed}
			return Amendment{}, &r
		case len(q.State.Snoozes) >= sp.Max:
			r := b.refuseIn(ctx, in, q, ErrLimit, AuditNoSnooze, func(w *i18n.Printer) string {
				return w.T("reply.snooze_limit", q.ID, len(q.State.Snoozes), sp.Max, whenText(w, q.ExpiresAt, b.cfg.Now(), loc))
			})
			return Amendment{}, &r
		case !q.ExpiresAt.Before(limit):
			r := b.refuseIn(ctx, in, q, ErrLimit, AuditNoSnooze, func(w *i18n.Printer) string {
				return w.T("reply.snooze_latest", q.ID, whenText(w, q.ExpiresAt, b.cfg.Now(), loc))
			})
			return Amendment{}, &r
		}
		next := q.ExpiresAt.Add(time.Duration(sp.By))
		if next.After(limit) {
			next = limit
		}
		delta := next.Sub(q.ExpiresAt)
		reminders := make([]time.Time, len(q.Reminders))
		for k, t := range q.Reminders {
			if k >= q.RemindersSent {
				t = t.Add(delta)
			}
			reminders[k] = t
		}
		st := clonedState(q.State)
		st.Snoozes = append(st.Snoozes, Snooze{By: by, At: now, ExpiresAt: next})
		at := next
		entry := AuditEntry{At: now, Kind: AuditSnoozed, By: &by, ExpiresAt: &at, Detail: "by " + shortDuration(english, delta)}
		return Amendment{State: st, ExpiresAt: next, Reminders: reminders, Audit: []AuditEntry{entry}, Extended: true}, nil
	})
	if refused != nil {
		return *refused
	}
	b.log.Info("question snoozed", "question_id", q.ID, "expires_at", q.ExpiresAt)
	b.updateCopies(q)
	w := b.words(in, q)
	return Reply{OK: true, Text: w.T("reply.snoozed", q.ID, whenText(w, q.ExpiresAt, b.cfg.Now(), loc), len(q.State.Snoozes), q.Policy.Snooze.Max), Question: q}
}

// longest is how far from its creation a question's deadline may be
// moved.
func (p Policy) longest() time.Duration {
	if p.TimeoutMax > 0 {
		return time.Duration(p.TimeoutMax)
	}
	return MaxTimeout
}

// PolicyText says what a pending copy shows of q's policies: the votes so
// far, the last snooze and who asked ("1 of 2: Allow by @ana · snoozed by
// @bo · asked by slack:U1"); "" when there is nothing to show.
func PolicyText(q *Question) string { return policyText(english, q) }

func policyText(w *i18n.Printer, q *Question) string {
	var parts []string
	if v := votesText(w, q); v != "" {
		parts = append(parts, v)
	}
	if n := len(q.State.Snoozes); n > 0 {
		parts = append(parts, w.T("chip.snoozed", whoText(w, &q.State.Snoozes[n-1].By)))
	}
	if e := escalatedText(w, q); e != "" {
		parts = append(parts, e)
	}
	if len(q.RequestedBy) > 0 {
		who := make([]string, len(q.RequestedBy))
		for i, e := range q.RequestedBy {
			who[i] = strings.TrimPrefix(e, "person:")
		}
		parts = append(parts, w.T("chip.asked_by", strings.Join(who, ", ")))
	}
	return strings.Join(parts, " · ")
}

// FormatSnooze returns "/snooze <id>", the command of a Snooze button, or
// "" when q's policy allows no snooze.
func FormatSnooze(q *Question) string {
	if q.Policy.Snooze == nil {
		return ""
	}
	return "/snooze " + q.ID
}
