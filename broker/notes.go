package broker

import (
	"context"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/internal/i18n"
)

// note records text that in's person wrote on q, a question with a
// quorum, without choosing an option: free text, or Not ready
// (/discuss). It attaches to the person's standing vote; without one, a
// Not ready is kept as the person's note and other text is refused with
// the options named. Neither counts as a vote nor ends the question.
func (b *Broker) note(ctx context.Context, in Inbound, q *Question, text string, notReady bool) Reply {
	by := *in.Responder()
	if notReady && text == "" {
		text = "not ready to answer"
	}
	voted := false
	q, refused := b.amend(ctx, in, q, func(q *Question) (Amendment, *Reply) {
		st := clonedState(q.State)
		k := voteOf(st.Votes, by)
		voted = k >= 0
		switch {
		case voted:
			st.Votes[k].Note = text
		case notReady:
			st.Notes = append(st.Notes, Note{By: by, Text: text, NotReady: true, At: b.now()})
		default:
			r := b.refuseIn(ctx, in, q, ErrInvalid, AuditNotAVote, func(w *i18n.Printer) string { return w.T("refuse.not_a_vote", q.ID, optionList(q.Prompts[0]), q.ID) })
			return Amendment{}, &r
		}
		entry := AuditEntry{At: b.now(), Kind: AuditNote, By: &by, Detail: text}
		if notReady {
			entry.Choice = "Not ready"
		}
		return Amendment{State: st, Audit: []AuditEntry{entry}}, nil
	})
	if refused != nil {
		return *refused
	}
	b.updateCopies(q)
	if notReady {
		w := b.words(in, q)
		return Reply{OK: true, Text: w.T("reply.not_ready_note", q.ID, q.Policy.quorum(), votesText(w, q)), Question: q}
	}
	w := b.words(in, q)
	return Reply{OK: true, Text: w.T("reply.vote_note", votesText(w, q)), Question: q}
}

// optionList names a prompt's options with their numbers: "1 Allow,
// 2 Deny".
func optionList(p Prompt) string {
	parts := make([]string, len(p.Options))
	for i, o := range p.Options {
		parts[i] = fmt.Sprintf("%d %s", i+1, strings.TrimSuffix(o.Label, RecommendedSuffix))
	}
	return strings.Join(parts, ", ")
}
