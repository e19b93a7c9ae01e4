package broker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// HandleInbound carries out one person's action from any channel and says
// what happened. It never fails: every problem becomes a Reply that names
// it, and changes nothing.
func (b *Broker) HandleInbound(ctx context.Context, in Inbound) Reply {
	in.Person = b.cfg.People.Of(in.Channel, in.User)
	cmd, err := Parse(in.Text)
	if errors.Is(err, ErrNotCommand) {
		return b.handleBare(ctx, in)
	}
	if in.VerbsNeedSlash && !in.Private && !strings.HasPrefix(strings.TrimSpace(in.Text), "/") {
		if onQuestion, refused := b.repliesToQuestion(ctx, in); !onQuestion {
			return refused
		}
	}
	if err != nil {
		// No question is loaded yet: the person's language, else the
		// channel's.
		return Reply{Text: sayErr(b.words(in, nil), err), Err: ErrInvalid}
	}
	switch cmd.Verb {
	case VerbPending:
		if cmd.ID != "" {
			return b.showOne(ctx, in, cmd.ID)
		}
		return b.pendingHere(ctx, in)
	case VerbAnswer:
		return b.answer(ctx, in, cmd.ID, cmd.Prompt, cmd.Choice)
	case VerbToggle:
		return b.toggle(ctx, in, cmd)
	case VerbSnooze:
		return b.snooze(ctx, in, cmd.ID)
	default:
		return b.decline(ctx, in, cmd)
	}
}

// repliesToQuestion reports whether in replies to (or in the platform's
// context of) a question message. When it does not, or the store cannot
// say, the returned reply says what to do: ignore the text, or report
// the outage.
func (b *Broker) repliesToQuestion(ctx context.Context, in Inbound) (bool, Reply) {
	if in.QuestionID != "" {
		return true, Reply{}
	}
	if in.ReplyTo == "" {
		return false, Reply{Ignored: true}
	}
	_, err := b.store.LookupMessage(ctx, in.Channel, in.Chat, in.ReplyTo)
	switch {
	case err == nil:
		return true, Reply{}
	case errors.Is(err, ErrNotFound):
		return false, Reply{Ignored: true}
	}
	return false, refuse(ErrUnavailable, "%s", b.words(in, nil).T("answer.lookup_failed"))
}

func refuse(kind error, format string, args ...any) Reply {
	return Reply{Text: fmt.Sprintf(format, args...), Err: kind}
}

// handleBare treats text that is no command: a reply to a question
// message, an answer in a context that names the question, or a bare
// answer in a private chat with exactly one open question.
func (b *Broker) handleBare(ctx context.Context, in Inbound) Reply {
	text := strings.TrimSpace(in.Text)
	if text == "" && len(in.Attachments) == 0 {
		return Reply{Ignored: true}
	}
	id, n := in.QuestionID, in.Prompt
	if id == "" && in.ReplyTo != "" {
		found, err := b.store.LookupMessage(ctx, in.Channel, in.Chat, in.ReplyTo)
		switch {
		case err == nil:
			id = found
		case !errors.Is(err, ErrNotFound):
			return refuse(ErrUnavailable, "%s", b.words(in, nil).T("answer.lookup_failed"))
		}
	}
	if id != "" {
		reply := b.answer(ctx, in, id, n, text)
		// On a conversation question that has ended, the text is a
		// message to the agent's session (conversation.go).
		reply, _ = b.sessionText(ctx, in, id, text, reply)
		return reply
	}
	if !in.Private {
		return Reply{Ignored: true}
	}
	w := b.words(in, nil)
	open, err := b.openHere(ctx, in)
	if err != nil {
		return refuse(ErrUnavailable, "%s", w.T("pending.list_failed"))
	}
	switch len(open) {
	case 0:
		return refuse(ErrNotFound, "%s", w.T("pending.none_here"))
	case 1:
		return b.answer(ctx, in, open[0].ID, 0, text)
	}
	return refuse(ErrInvalid, "%s", w.T("pending.several", b.listText(w, open, b.locationOf(in))))
}

// openHere lists the open questions of in's chat that in's user may
// answer; the others are not shown, so a text channel's /pending never
// tells one responder of another's questions.
func (b *Broker) openHere(ctx context.Context, in Inbound) ([]*Question, error) {
	qs, err := b.store.List(ctx, Filter{Channel: in.Channel, Chat: in.Chat, Status: StatusPending, Limit: 50})
	if err != nil {
		return nil, err
	}
	mine := qs[:0]
	for _, q := range qs {
		if _, allowed := q.inScope(in); allowed {
			mine = append(mine, q)
		}
	}
	return mine, nil
}

func (b *Broker) pendingHere(ctx context.Context, in Inbound) Reply {
	w := b.words(in, nil)
	open, err := b.openHere(ctx, in)
	if err != nil {
		return refuse(ErrUnavailable, "%s", w.T("pending.list_failed"))
	}
	if len(open) == 0 {
		return Reply{OK: true, Text: w.T("pending.empty")}
	}
	return Reply{OK: true, Text: w.T("pending.count", len(open), b.listText(w, open, b.locationOf(in)))}
}

// listText lists qs, one a line, in w's language: the id, the first
// question as the agent wrote it, and the state line of its card.
func (b *Broker) listText(w *i18n.Printer, qs []*Question, loc *time.Location) string {
	lines := make([]string, len(qs))
	for k, q := range qs {
		state := BuildCard(q, Viewer{Now: b.cfg.Now(), Loc: loc, Locale: w.Locale()}).StateLine()
		lines[k] = w.T("pending.item", q.ID, q.Prompts[0].Question, state)
	}
	return strings.Join(lines, "\n")
}

// authorize loads question id and checks that in may act on it: the
// command comes from a chat the question was posted to, by an allowed
// responder. Unknown and foreign questions read the same, so nothing
// leaks across chats.
func (b *Broker) authorize(ctx context.Context, in Inbound, id string) (*Question, *Reply) {
	q, err := b.store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		r := refuse(ErrNotFound, "%s", b.words(in, nil).T("refuse.no_question", id))
		return nil, &r
	}
	if err != nil {
		r := refuse(ErrUnavailable, "%s", b.words(in, nil).T("refuse.read_failed", id))
		return nil, &r
	}
	known, allowed := q.inScope(in)
	if !known {
		// The same words as an unknown id, in the channel's language: the
		// question's route is not told to a chat it was not sent to.
		r := refuse(ErrNotFound, "%s", b.words(in, nil).T("refuse.no_question", id))
		return nil, &r
	}
	if !allowed {
		r := b.refuseIn(ctx, in, q, ErrForbidden, AuditNotResponder, func(w *i18n.Printer) string { return w.T("refuse.not_responder", id) })
		return nil, &r
	}
	if q.Status == StatusPending {
		if now := b.cfg.Now(); !now.Before(q.ExpiresAt) {
			// Late, and the sweeper has not come by yet: the deadline
			// wins, exactly as if it had.
			expired, err := b.Expire(ctx, q, now)
			var closed *ClosedError
			switch {
			case errors.As(err, &closed):
				q = closed.Question
			case errors.Is(err, ErrNotDue):
				q = expired
			case err != nil:
				r := refuse(ErrUnavailable, "%s", b.words(in, q).T("refuse.record_failed"))
				return nil, &r
			default:
				q = expired
			}
		}
	}
	if q.Status != StatusPending {
		r := refuse(ErrClosed, "%s", closedText(b.words(in, q), q, b.cfg.Location))
		r.Question = q
		return nil, &r
	}
	return q, nil
}

// authorizeAct is authorize for an action that changes q: on a question
// whose policy counts people (a quorum, forbid_requester), the account
// must belong to a person, so that no human counts twice.
func (b *Broker) authorizeAct(ctx context.Context, in Inbound, id string) (*Question, *Reply) {
	q, refused := b.authorize(ctx, in, id)
	if refused != nil {
		return q, refused
	}
	if q.countsPeople() && in.Person == nil {
		r := b.refuseIn(ctx, in, q, ErrForbidden, AuditUnlinked, func(w *i18n.Printer) string { return w.T("refuse.unlinked", channelTitle(in.Channel)) })
		return nil, &r
	}
	return q, nil
}

func (b *Broker) decline(ctx context.Context, in Inbound, cmd Command) Reply {
	q, refused := b.authorizeAct(ctx, in, cmd.ID)
	if refused != nil {
		return *refused
	}
	reason, err := CheckPersonText(cmd.Text)
	if err != nil {
		return personTextRefused(b.words(in, q), q, err)
	}
	if q.voting() && cmd.Verb == VerbDecline {
		return b.vote(ctx, in, q, nil, true, reason)
	}
	if q.voting() {
		// Not ready, from one person, does not end a question that needs
		// several: it is that person's note.
		return b.note(ctx, in, q, reason, true)
	}
	r := Resolution{Status: StatusDeclined, Reason: reason, AnsweredBy: in.Responder()}
	if cmd.Verb == VerbDiscuss {
		r.NotReady = true
	}
	q, err = b.Resolve(ctx, q.ID, r)
	if reply, done := b.resolveFailed(in, q, err); done {
		return reply
	}
	if r.NotReady {
		return Reply{OK: true, Text: b.words(in, q).T("reply.discuss"), Question: q}
	}
	return Reply{OK: true, Text: b.words(in, q).T("reply.declined"), Question: q}
}

// personTextRefused is the reply to a person's text that CheckPersonText
// refused, in w's language.
func personTextRefused(w *i18n.Printer, q *Question, err error) Reply {
	return Reply{Text: w.T("answer.not_recorded", sayErr(w, err)), Question: q, Err: ErrInvalid}
}

// resolveFailed is the reply to in's action on q that the store refused
// with err, and true; false when err is nil. q may be nil.
func (b *Broker) resolveFailed(in Inbound, q *Question, err error) (Reply, bool) {
	if err == nil {
		return Reply{}, false
	}
	var closed *ClosedError
	switch {
	case errors.As(err, &closed):
		return Reply{Text: closedText(b.words(in, closed.Question), closed.Question, b.cfg.Location), Question: closed.Question, Err: ErrClosed}, true
	case err != nil:
		b.log.Error("resolve", "err", err)
		return refuse(ErrUnavailable, "%s", b.words(in, q).T("refuse.record_failed")), true
	}
	return Reply{}, false
}

func (b *Broker) answer(ctx context.Context, in Inbound, id string, n int, choice string) Reply {
	if reply, ok := b.answerKnown(ctx, in, id, n, choice); ok {
		return reply
	}
	q, refused := b.authorizeAct(ctx, in, id)
	if refused != nil {
		return *refused
	}
	if r := b.refuseRequester(ctx, in, q); r != nil {
		return *r
	}
	i, a, refused := b.interpret(q, in, n, choice)
	if refused != nil {
		return *refused
	}
	files, refused := b.attachFiles(ctx, in, q, i, &a)
	if refused != nil {
		return *refused
	}
	reply := b.record(ctx, in, q, i, a)
	if errors.Is(reply.Err, ErrClosed) || errors.Is(reply.Err, ErrConflict) {
		b.dropFiles(q.ID, files)
	}
	return reply
}

// answerKnown records in's answer to question id on the copy this
// instance remembers of it (known.go), without reading it back: only an
// answer without files to a single question without a quorum, pending and
// not due on that copy, by a person it lets answer, which every check
// accepts. The store's compare-and-set then records it or, when the
// question closed meanwhile, refuses it as a fresh read would have. It
// reports false, having changed nothing, in every other case, for the
// caller to decide on a fresh read.
func (b *Broker) answerKnown(ctx context.Context, in Inbound, id string, n int, choice string) (Reply, bool) {
	q := b.known.get(id)
	if q == nil || len(in.Attachments) > 0 || len(q.Prompts) != 1 || q.countsPeople() ||
		q.Status != StatusPending || !b.cfg.Now().Before(q.ExpiresAt) {
		return Reply{}, false
	}
	if _, allowed := q.inScope(in); !allowed {
		return Reply{}, false
	}
	i, a, refused := b.interpret(q, in, n, choice)
	if refused != nil {
		return Reply{}, false
	}
	return b.record(ctx, in, q, i, a), true
}

// interpret checks in's choice for prompt n of q and turns it into the
// answer to record, or the reply that refuses it; it changes nothing.
func (b *Broker) interpret(q *Question, in Inbound, n int, choice string) (int, Answer, *Reply) {
	choice, err := CheckPersonText(choice)
	if err != nil {
		r := personTextRefused(b.words(in, q), q, err)
		return 0, Answer{}, &r
	}
	w := b.words(in, q)
	i, err := promptIndex(q, n)
	if err != nil {
		return 0, Answer{}, &Reply{Text: sayErr(w, err), Question: q, Err: ErrInvalid}
	}
	if r := checkFiles(w, q, q.Prompts[i], nil, in.Attachments); r != nil {
		return 0, Answer{}, r
	}
	if r := ambiguousWord(w, q, i, choice); r != nil {
		return 0, Answer{}, r
	}
	a := Answer{Selected: []string{}}
	if strings.TrimSpace(choice) != "" || len(in.Attachments) == 0 || q.Prompts[i].Field != nil {
		a, err = Interpret(q.Prompts[i], ParseChoice(choice))
		if err != nil {
			return 0, Answer{}, &Reply{Text: sayErr(w, err), Question: q, Err: ErrInvalid}
		}
	}
	a.AnsweredBy = in.Responder()
	return i, a, nil
}

// commandWords are the verbs that, typed alone as an answer, more likely
// mean the command than the text.
var commandWords = []Verb{VerbSnooze, VerbDecline, VerbDiscuss, VerbPending, VerbToggle, VerbAnswer}

// ambiguousWord refuses an answer that is only a command word ("bridge
// answer k7m2qx snooze") unless an option of prompt i is labelled so: it
// says how to do either, in w's language.
func ambiguousWord(w *i18n.Printer, q *Question, i int, choice string) *Reply {
	word := strings.ToLower(strings.TrimSpace(choice))
	if !slices.Contains(commandWords, Verb(word)) {
		return nil
	}
	for _, o := range q.Prompts[i].Options {
		if strings.EqualFold(strings.TrimSuffix(o.Label, RecommendedSuffix), word) {
			return nil
		}
	}
	return &Reply{Text: w.T("answer.command_word", word, word, q.ID, word, q.ID, word, q.ID, FormatAnswer(q.Ref(i), "other "+word)), Question: q, Err: ErrInvalid}
}

// record records a as the answer to prompt i of q: the whole answer of a
// single question, or one part of a dialog.
func (b *Broker) record(ctx context.Context, in Inbound, q *Question, i int, a Answer) Reply {
	if q.voting() {
		return b.vote(ctx, in, q, &a, false, "")
	}
	if len(q.Prompts) == 1 {
		q, err := b.Resolve(ctx, q.ID, Resolution{Status: StatusAnswered, Answers: map[string]Answer{q.Prompts[0].Question: a}, AnsweredBy: in.Responder()})
		if reply, done := b.resolveFailed(in, q, err); done {
			return reply
		}
		w := b.words(in, q)
		return Reply{OK: true, Text: w.T("reply.recorded", answerValue(w, a)), Question: q}
	}
	return b.answerPart(ctx, in, q, i, a)
}

// answerPart records one prompt of a dialog and resolves the dialog when
// every prompt has an answer or a skip.
func (b *Broker) answerPart(ctx context.Context, in Inbound, q *Question, i int, a Answer) Reply {
	id := q.ID
	q, err := b.store.SaveProgress(ctx, id, i, a)
	b.known.forget(id)
	if errors.Is(err, ErrConflict) {
		return Reply{Text: b.words(in, q).T("answer.part_given", i+1, id), Question: q, Err: ErrConflict}
	}
	if reply, done := b.resolveFailed(in, q, err); done {
		return reply
	}
	b.audit(ctx, id, PromptAnsweredAudit(in, i, a, b.now()))
	if next := q.NextOpen(); next >= 0 {
		b.updateCopies(q)
		w := b.words(in, q)
		return Reply{OK: true, Text: w.T("reply.recorded_next", answerValue(w, a), i+1, len(q.Prompts), q.Prompts[next].Question), Question: q}
	}
	answers := map[string]Answer{}
	for k, p := range q.Prompts {
		answers[p.Question] = *q.Progress[k]
	}
	q, err = b.Resolve(ctx, q.ID, Resolution{Status: StatusAnswered, Answers: answers, AnsweredBy: in.Responder()})
	if reply, done := b.resolveFailed(in, q, err); done {
		return reply
	}
	w := b.words(in, q)
	return Reply{OK: true, Text: w.T("reply.recorded", answerText(w, q)), Question: q}
}
