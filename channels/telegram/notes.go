package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
)

// Notes beside options. A button's callback data holds 64 bytes, too few
// for a note, so the note a person types after "Note…" (or after "Other…"
// with options ticked) is held in memory (heldNotes) and the keyboard
// offers the choice with it: those buttons carry withNoteData, and the tap
// sends broker.FormatOptionsOther with the held note.

// withNote is the callback data that sends options (0-based) of prompt r
// with the note held for it.
func withNote(r broker.PromptRef, options []int) string {
	digits := "0"
	if len(options) > 0 {
		var b strings.Builder
		for _, k := range options {
			b.WriteString(strconv.Itoa(k + 1))
		}
		digits = b.String()
	}
	return fmt.Sprintf("%s%s:%d:%d:%s", withNoteData, r.ID, r.Index, r.Count, digits)
}

// noteStep is parsed withNoteData.
type noteStep struct {
	ref     broker.PromptRef
	options []int
}

// parseWithNote reads withNoteData callback data.
func parseWithNote(data string) (noteStep, bool) {
	f := strings.Split(strings.TrimPrefix(data, withNoteData), ":")
	if len(f) != 4 || !broker.ValidID(f[0]) {
		return noteStep{}, false
	}
	i, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.Atoi(f[2])
	s := noteStep{ref: broker.PromptRef{ID: f[0], Index: i, Count: n}}
	if err1 != nil || err2 != nil || !s.ref.Valid() || f[3] == "" || len(f[3]) > broker.MaxOptions {
		return noteStep{}, false
	}
	if f[3] == "0" {
		return s, true
	}
	for _, d := range f[3] {
		if d < '1' || d > '0'+broker.MaxOptions {
			return noteStep{}, false
		}
		s.options = append(s.options, int(d-'1'))
	}
	return s, true
}

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
	if q.Prompts[i].MultiSelect {
		if len(q.Selections[i]) == 0 {
			return "Note kept: “" + text + "”. Tick options, then tap Done; Done alone sends the note as your answer."
		}
		return "Note kept: “" + text + "”. Tap Done to send it with your choice."
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
	kb, _ := c.keyboard(q, prompt)
	edit := tgbotapi.NewEditMessageReplyMarkup(chat, msg, tgbotapi.InlineKeyboardMarkup{InlineKeyboard: nonNil(kb)})
	if err := c.request(ctx, "redraw keyboard of "+q.ID, edit); err != nil {
		c.log.Warn("redrawing the keyboard failed", "question_id", q.ID, "err", err)
	}
}

// sendWithNote answers a button that sends options with the held note.
func (c *Channel) sendWithNote(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound) {
	s, ok := parseWithNote(cq.Data)
	if !ok {
		c.answerCallback(ctx, cq.ID, "This button is not from a current question.", true)
		return
	}
	key := noteKey{s.ref.ID, s.ref.Index}
	note, ok := c.notes.get(key)
	if !ok {
		c.answerCallback(ctx, cq.ID, "Your note was lost (the bridge restarted, or it was sent already); nothing was recorded. Type it again with Other… or Note….", true)
		if q := c.question(ctx, in, s.ref.ID); q != nil {
			c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, s.ref.Index)
		}
		return
	}
	in.Text = broker.FormatOptionsOther(s.ref, s.options, note)
	reply := c.h.HandleInbound(ctx, in)
	if reply.OK {
		c.notes.drop(key)
	}
	c.answerCallback(ctx, cq.ID, reply.Text, !reply.OK)
}

// dropNote forgets the held note of a prompt and redraws the keyboard.
func (c *Channel) dropNote(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound) {
	id, n, ok := parseStep(cq.Data, dropNoteData, 1)
	if !ok {
		c.answerCallback(ctx, cq.ID, "This button is not from a current question.", true)
		return
	}
	c.notes.drop(noteKey{id, n[0]})
	if q := c.question(ctx, in, id); q != nil {
		c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, n[0])
	}
	c.answerCallback(ctx, cq.ID, "Note dropped.", false)
}
