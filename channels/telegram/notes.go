package telegram

import (
	"context"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
)

// Notes beside options. A button's callback data holds 64 bytes, too few
// for a note, so the note a person types after "Note…" (or after Other
// with options ticked) is held in memory (heldNotes) and the keyboard
// offers the choice with it: those buttons carry a broker.StepWithNote,
// and the tap sends the step's command with the held note.

// holdNote keeps text as the note of the prompt p asked about, redraws
// the question message's keyboard to offer the choice with it, and says
// what to tap next. in is who typed the note, for reading the question.
func (c *Channel) holdNote(ctx context.Context, in broker.Inbound, chat int64, p otherPrompt, text string) string {
	i := p.ref.Index
	c.notes.put(noteKey{p.ref.ID, i}, text, c.now())
	q := c.question(ctx, in, p.ref.ID)
	if q == nil {
		return "Note kept: “" + text + "”. Now tap the option it goes with."
	}
	c.redraw(ctx, chat, p.message, q, i)
	if p := c.card(q).Prompts[i]; p.MultiSelect {
		submit, _ := p.Control(broker.ControlSubmit)
		if len(tickedOptions(p)) == 0 {
			return "Note kept: “" + text + "”. Tick options, then tap " + submit.Label + "; " + submit.Label + " alone sends the note as your answer."
		}
		return "Note kept: “" + text + "”. Tap " + submit.Label + " to send it with your choice."
	}
	return "Note kept: “" + text + "”. Now tap the option it goes with."
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

// sendWithNote answers a button that sends options with the held note.
func (c *Channel) sendWithNote(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound, s broker.Step) {
	key := noteKey{s.Ref.ID, s.Ref.Index}
	note, ok := c.notes.get(key)
	if !ok {
		c.answerCallback(ctx, cq.ID, "Your note was lost (the bridge restarted, or it was sent already); nothing was recorded. Type it again in the reply box.", true)
		if q := c.question(ctx, in, s.Ref.ID); q != nil {
			c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, s.Ref.Index)
		}
		return
	}
	cmd, ok := s.Command(note)
	if !ok {
		c.notes.drop(key)
		c.answerCallback(ctx, cq.ID, "The note is empty; nothing was recorded.", true)
		return
	}
	in.Text = cmd
	reply := c.h.HandleInbound(ctx, in)
	if reply.OK {
		c.notes.drop(key)
	}
	c.answerCallback(ctx, cq.ID, reply.Text, !reply.OK)
}

// dropNote forgets the held note of a prompt and redraws the keyboard.
func (c *Channel) dropNote(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound, s broker.Step) {
	c.notes.drop(noteKey{s.Ref.ID, s.Ref.Index})
	if q := c.question(ctx, in, s.Ref.ID); q != nil {
		c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, s.Ref.Index)
	}
	c.answerCallback(ctx, cq.ID, "Note dropped.", false)
}
