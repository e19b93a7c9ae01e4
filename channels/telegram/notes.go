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

// withNote is the callback data that sends options (0-based) of prompt i
// with the note held for it.
func withNote(q *broker.Question, i int, options []int) string {
	digits := "0"
	if len(options) > 0 {
		var b strings.Builder
		for _, k := range options {
			b.WriteString(strconv.Itoa(k + 1))
		}
		digits = b.String()
	}
	return fmt.Sprintf("%s%s:%d:%d:%s", withNoteData, q.ID, i, len(q.Prompts), digits)
}

// noteStep is parsed withNoteData.
type noteStep struct {
	id      string
	prompt  int
	prompts int
	options []int
}

// question is a stand-in with the id and prompt count of s, enough for
// the broker's formatters.
func (s noteStep) question() *broker.Question {
	return &broker.Question{ID: s.id, Prompts: make([]broker.Prompt, s.prompts)}
}

// parseWithNote reads withNoteData callback data.
func parseWithNote(data string) (noteStep, bool) {
	f := strings.Split(strings.TrimPrefix(data, withNoteData), ":")
	if len(f) != 4 || !broker.ValidID(f[0]) {
		return noteStep{}, false
	}
	i, err1 := strconv.Atoi(f[1])
	n, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || n < 1 || n > broker.MaxPrompts || i < 0 || i >= n || f[3] == "" || len(f[3]) > broker.MaxOptions {
		return noteStep{}, false
	}
	s := noteStep{id: f[0], prompt: i, prompts: n}
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
// what to tap next.
func (c *Channel) holdNote(ctx context.Context, chat int64, p otherPrompt, text string) string {
	c.notes.put(noteKey{p.q.ID, p.prompt}, text, c.now())
	q := c.questions.get(p.q.ID)
	if q == nil {
		q = p.q
	}
	c.redraw(ctx, chat, p.message, q, p.prompt)
	ticked := broker.SelectedOptions(q.Selections[p.prompt])
	if _, canToggle := c.h.(toggler); canToggle && q.Prompts[p.prompt].MultiSelect {
		if len(ticked) == 0 {
			return "Note kept: “" + text + "”. Tick options, then tap Done; Done alone sends the note as your answer."
		}
		return "Note kept: “" + text + "”. Tap Done to send it with your choice."
	}
	return "Note kept: “" + text + "”. Now tap the option it goes with."
}

// redraw replaces the keyboard of question message msg.
func (c *Channel) redraw(ctx context.Context, chat int64, msg int, q *broker.Question, prompt int) {
	if msg == 0 || currentPrompt(q) != prompt {
		return
	}
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
	note, ok := c.notes.get(noteKey{s.id, s.prompt})
	if !ok {
		c.answerCallback(ctx, cq.ID, "Your note was lost (the bridge restarted, or it was sent already); nothing was recorded. Type it again with Other… or Note….", true)
		if q := c.questions.get(s.id); q != nil {
			c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, s.prompt)
		}
		return
	}
	in.Text = broker.FormatOptionsOther(s.question(), s.prompt, s.options, note)
	reply := c.h.HandleInbound(ctx, in)
	if reply.OK {
		c.notes.drop(noteKey{s.id, s.prompt})
	}
	c.answerCallback(ctx, cq.ID, reply.Text, !reply.OK)
}

// dropNote forgets the held note of a prompt and redraws the keyboard.
func (c *Channel) dropNote(ctx context.Context, cq *tgbotapi.CallbackQuery) {
	id, n, ok := parseStep(cq.Data, dropNoteData, 1)
	if !ok {
		c.answerCallback(ctx, cq.ID, "This button is not from a current question.", true)
		return
	}
	c.notes.drop(noteKey{id, n[0]})
	if q := c.questions.get(id); q != nil {
		c.redraw(ctx, cq.Message.Chat.ID, cq.Message.MessageID, q, n[0])
	}
	c.answerCallback(ctx, cq.ID, "Note dropped.", false)
}
