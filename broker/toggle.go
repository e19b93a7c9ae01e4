package broker

import (
	"context"
	"slices"
	"strings"

	"github.com/askbridge/askbridge/internal/i18n"
)

// toggle ticks or unticks one option of a multi-select prompt in the
// selection kept in the store ("/toggle k7m2qx.2 3"), for channels that
// build a selection tap by tap, and redraws every copy of the question so
// that each chat shows the same selection. A refused toggle changes
// nothing and says why.
func (b *Broker) toggle(ctx context.Context, in Inbound, cmd Command) Reply {
	q, refused := b.authorizeAct(ctx, in, cmd.ID)
	if refused != nil {
		return *refused
	}
	w := b.words(in, q)
	i, err := promptIndex(q, cmd.Prompt)
	if err != nil {
		return Reply{Text: w.T("answer.toggle_unchanged", sayErr(w, err)), Question: q, Err: ErrInvalid}
	}
	p := q.Prompts[i]
	switch {
	case q.Given(i) != nil:
		return Reply{Text: w.T("answer.toggle_given", promptLabel(w, q, i, true)), Question: q, Err: ErrConflict}
	case !p.MultiSelect || len(p.Options) == 0:
		return Reply{Text: w.T("answer.toggle_single", promptLabel(w, q, i, true), FormatAnswer(q.Ref(i), w.T("answer.choice_placeholder"))), Question: q, Err: ErrInvalid}
	case cmd.Option > len(p.Options):
		return Reply{Text: w.T("answer.toggle_not_option", cmd.Option, promptLabel(w, q, i, false), choiceRange(len(p.Options)).in(w)), Question: q, Err: ErrInvalid}
	}
	sel := slices.Clone(q.Selections[i])
	if k := slices.Index(sel, cmd.Option-1); k >= 0 {
		sel = slices.Delete(sel, k, k+1)
	} else {
		sel = append(sel, cmd.Option-1)
	}
	q, err = b.store.SetSelection(ctx, q.ID, i, SelectedOptions(sel))
	b.known.forget(cmd.ID)
	if reply, done := b.resolveFailed(in, q, err); done {
		return reply
	}
	b.updateCopies(q)
	return Reply{OK: true, Text: selectionText(b.words(in, q), q, i), Question: q}
}

// promptLabel names prompt i of q in a sentence, in w's language:
// "Question 2 of k7m2qx" in a dialog, "Question k7m2qx" otherwise, at
// the start of a sentence (first) or within one ("question 2 of k7m2qx").
func promptLabel(w *i18n.Printer, q *Question, i int, first bool) string {
	switch {
	case len(q.Prompts) > 1 && first:
		return w.T("answer.prompt_of", i+1, q.ID)
	case len(q.Prompts) > 1:
		return w.T("answer.prompt_of_mid", i+1, q.ID)
	case first:
		return w.T("answer.prompt_one", q.ID)
	}
	return w.T("answer.prompt_one_mid", q.ID)
}

// SelectionText says what is ticked so far in multi-select prompt i of q:
// "Selected: Redis, Memcached." or "Nothing selected."
func SelectionText(q *Question, i int) string { return selectionText(english, q, i) }

func selectionText(w *i18n.Printer, q *Question, i int) string {
	var labels []string
	for _, k := range SelectedOptions(q.Selections[i]) {
		if k >= 0 && k < len(q.Prompts[i].Options) {
			labels = append(labels, q.Prompts[i].Options[k].Label)
		}
	}
	if len(labels) == 0 {
		return w.T("answer.selected_none")
	}
	return w.T("answer.selected", strings.Join(labels, ", "))
}

// showOne answers "/pending <id>": the question as it stands, in the
// words of /pending, with the question in the reply for channels that
// need it to draw a step of their interface.
func (b *Broker) showOne(ctx context.Context, in Inbound, id string) Reply {
	q, refused := b.authorize(ctx, in, id)
	if refused != nil {
		return *refused
	}
	w := b.words(in, q)
	text := b.listText(w, []*Question{q}, b.locationOf(in))
	if next := q.NextOpen(); len(q.Prompts) > 1 && next >= 0 {
		text += "\n" + w.T("pending.now", next+1, len(q.Prompts), q.Prompts[next].Question)
	}
	return Reply{OK: true, Text: text, Question: q}
}
