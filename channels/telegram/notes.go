package telegram

import (
	"context"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// The text typed in the card's one reply box ("Other or note…") on a
// prompt with options. A button's callback data holds 64 bytes, too few
// for text, so the reply is held in memory (heldNotes) and the keyboard
// offers what to do with it: each option (or Submit, with the ticks) with
// it as the note, "Send as my answer" for the text alone, "Change…" and
// "Drop note". Those buttons carry a broker.StepWithNote (with options,
// or none for the answer alone), and the tap sends the step's command
// with the held text.

// holdNote keeps text as the note of the prompt p asked about, redraws
// the question message's keyboard to offer the choice with it, and says
// what to tap next. in is who typed the note, for reading the question.
func (c *Channel) holdNote(ctx context.Context, in broker.Inbound, chat int64, p otherPrompt, text string) string {
	i := p.ref.Index
	c.notes.put(noteKey{p.ref.ID, i}, text, c.now())
	q := c.question(ctx, in, p.ref.ID)
	if q == nil {
		w := c.words(in.User)
		return w.T("dialog.telegram.kept_option", text, w.T("dialog.telegram.send_as_answer"))
	}
	c.redraw(ctx, chat, p.message, q, i)
	card := c.card(q)
	w := i18n.For(card.Locale)
	alone := w.T("dialog.telegram.send_as_answer")
	if p := card.Prompts[i]; p.MultiSelect {
		submit, _ := p.Control(broker.ControlSubmit)
		if len(tickedOptions(p)) == 0 {
			return w.T("dialog.telegram.kept_tick", text, submit.Label, alone)
		}
		return w.T("dialog.telegram.kept_submit", text, submit.Label, alone)
	}
	return w.T("dialog.telegram.kept_option", text, alone)
}

// ticked are the options of prompt ref ticked so far, as the store holds
// them; none when the question cannot be read.
func (c *Channel) ticked(ctx context.Context, in broker.Inbound, ref broker.PromptRef) []int {
	q := c.question(ctx, in, ref.ID)
	if q == nil || ref.Index >= len(q.Prompts) {
		return nil
	}
	return tickedOptions(c.card(q).Prompts[ref.Index])
}

// otherLabel is the label of the button that opens the reply box of q's
// current prompt, as its keyboard shows it now ("Other or note…", or
// "📝 Change…" while text is held), or "" when there is none.
func (c *Channel) otherLabel(q *broker.Question) string {
	card := c.card(q)
	if card.Current < 0 {
		return ""
	}
	p := card.Prompts[card.Current]
	other, ok := p.Control(broker.ControlOther)
	switch {
	case !ok:
		return ""
	case c.holding(q.ID, p):
		return i18n.For(card.Locale).T("dialog.telegram.change")
	}
	return other.Label
}

// holding reports whether prompt p of question id holds text from its
// reply box for the keyboard to offer: only a prompt with options and
// an Other control does.
func (c *Channel) holding(id string, p broker.CardPrompt) bool {
	if _, ok := p.Control(broker.ControlOther); !ok || len(p.Options) == 0 {
		return false
	}
	_, ok := c.notes.get(noteKey{id, p.Ref.Index})
	return ok
}

// notKept is the reply to text typed in a reply box that a restart
// forgot: nothing was recorded, and what to tap or type instead.
func (c *Channel) notKept(ctx context.Context, in broker.Inbound, id string) string {
	q := c.question(ctx, in, id)
	if q == nil {
		return c.words(in.User).T("dialog.telegram.not_kept")
	}
	w := i18n.For(c.card(q).Locale)
	if label := c.otherLabel(q); label != "" {
		return w.T("dialog.telegram.not_kept_tap", label)
	}
	return w.T("dialog.telegram.not_kept")
}

// question reads question id as it stands through the broker ("/pending
// <id>"), on behalf of in: the chat must hold a copy, the person may
// answer, the question is open. It returns nil otherwise, or when the
// store cannot say.
func (c *Channel) question(ctx context.Context, in broker.Inbound, id string) *broker.Question {
	q, _ := c.read(ctx, in, id)
	return q
}

// read is question with the broker's reply, for telling the person why
// there is no question to show.
func (c *Channel) read(ctx context.Context, in broker.Inbound, id string) (*broker.Question, broker.Reply) {
	in.Text = broker.FormatPending(id)
	in.ReplyTo, in.QuestionID, in.Prompt, in.Attachments = "", "", 0, nil
	r := c.h.HandleInbound(ctx, in)
	if !r.OK || r.Question == nil {
		return nil, r
	}
	return r.Question, r
}

// redraw replaces the keyboard of question message msg.
func (c *Channel) redraw(ctx context.Context, chat int64, msg int, q *broker.Question, prompt int) {
	if msg == 0 || q.NextOpen() != prompt {
		return
	}
	defer c.drawing.lock(chat, msg)()
	kb, _ := c.keyboard(c.card(q))
	edit := tgbotapi.NewEditMessageReplyMarkup(chat, msg, tgbotapi.InlineKeyboardMarkup{InlineKeyboard: nonNil(kb)})
	if err := c.request(ctx, "redraw keyboard of "+q.ID, edit); err != nil {
		c.log.Warn("redrawing the keyboard failed", "question_id", q.ID, "err", err)
	}
}

// sendWithNote answers a button that sends the held text: with options
// as their note, or alone as the Other answer ("Send as my answer").
func (c *Channel) sendWithNote(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound, s broker.Step) {
	key := noteKey{s.Ref.ID, s.Ref.Index}
	note, ok := c.notes.get(key)
	if !ok {
		lost := c.words(in.User).T("dialog.telegram.lost")
		q := c.question(ctx, in, s.Ref.ID)
		if q != nil {
			w := i18n.For(c.card(q).Locale)
			lost = w.T("dialog.telegram.lost")
			if label := c.otherLabel(q); label != "" {
				lost = w.T("dialog.telegram.lost_tap", label)
			}
		}
		c.answerCallback(ctx, cq.ID, lost, true)
		if q != nil {
			c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, s.Ref.Index)
		}
		return
	}
	cmd, ok := s.Command(note)
	if !ok {
		c.notes.drop(key)
		c.answerCallback(ctx, cq.ID, c.words(in.User).T("dialog.telegram.note_empty"), true)
		return
	}
	in.Text = cmd
	reply := c.h.HandleInbound(ctx, in)
	if reply.OK {
		c.notes.drop(key)
	}
	c.answerCallback(ctx, cq.ID, reply.Text, !reply.OK)
}

// dropNote forgets the held text of a prompt and redraws the keyboard.
func (c *Channel) dropNote(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound, s broker.Step) {
	c.notes.drop(noteKey{s.Ref.ID, s.Ref.Index})
	w := c.words(in.User)
	if q := c.question(ctx, in, s.Ref.ID); q != nil {
		c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, s.Ref.Index)
		w = i18n.For(c.card(q).Locale)
	}
	c.answerCallback(ctx, cq.ID, w.T("dialog.telegram.note_dropped"), false)
}
