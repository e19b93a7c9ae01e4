package broker

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
	i, err := promptIndex(q, cmd.Prompt)
	if err != nil {
		return Reply{Text: err.Error() + "; nothing was changed.", Question: q, Err: ErrInvalid}
	}
	p := q.Prompts[i]
	name := promptLabel(q, i)
	switch {
	case q.Given(i) != nil:
		return Reply{Text: fmt.Sprintf("%s already has an answer; nothing was changed.", name), Question: q, Err: ErrConflict}
	case !p.MultiSelect || len(p.Options) == 0:
		return Reply{Text: fmt.Sprintf("%s takes one answer, so there is nothing to toggle: answer with %s; nothing was changed.", name, FormatAnswer(q.Ref(i), "<choice>")), Question: q, Err: ErrInvalid}
	case cmd.Option > len(p.Options):
		return Reply{Text: fmt.Sprintf("%d is not an option of %s: choose %s; nothing was changed.", cmd.Option, strings.ToLower(name[:1])+name[1:], rangeText(len(p.Options))), Question: q, Err: ErrInvalid}
	}
	sel := slices.Clone(q.Selections[i])
	if k := slices.Index(sel, cmd.Option-1); k >= 0 {
		sel = slices.Delete(sel, k, k+1)
	} else {
		sel = append(sel, cmd.Option-1)
	}
	q, err = b.store.SetSelection(ctx, q.ID, i, SelectedOptions(sel))
	b.known.forget(cmd.ID)
	if reply, done := b.resolveFailed(q, err); done {
		return reply
	}
	b.updateCopies(q)
	return Reply{OK: true, Text: SelectionText(q, i), Question: q}
}

// promptLabel names prompt i of q in a sentence: "Question 2 of k7m2qx"
// in a dialog, "Question k7m2qx" otherwise.
func promptLabel(q *Question, i int) string {
	if len(q.Prompts) > 1 {
		return fmt.Sprintf("Question %d of %s", i+1, q.ID)
	}
	return "Question " + q.ID
}

// SelectionText says what is ticked so far in multi-select prompt i of q:
// "Selected: Redis, Memcached." or "Nothing selected."
func SelectionText(q *Question, i int) string {
	var labels []string
	for _, k := range SelectedOptions(q.Selections[i]) {
		if k >= 0 && k < len(q.Prompts[i].Options) {
			labels = append(labels, q.Prompts[i].Options[k].Label)
		}
	}
	if len(labels) == 0 {
		return "Nothing selected."
	}
	return "Selected: " + strings.Join(labels, ", ") + "."
}

// showOne answers "/pending <id>": the question as it stands, in the
// words of /pending, with the question in the reply for channels that
// need it to draw a step of their interface.
func (b *Broker) showOne(ctx context.Context, in Inbound, id string) Reply {
	q, refused := b.authorize(ctx, in, id)
	if refused != nil {
		return *refused
	}
	text := b.listText([]*Question{q}, b.locationOf(in))
	if next := q.NextOpen(); len(q.Prompts) > 1 && next >= 0 {
		text += fmt.Sprintf("\nNow question %d of %d: %s", next+1, len(q.Prompts), q.Prompts[next].Question)
	}
	return Reply{OK: true, Text: text, Question: q}
}
