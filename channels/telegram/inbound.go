package telegram

import (
	"context"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// handleUpdate turns one Telegram update into broker input and shows the
// broker's reply. Updates other than messages and button taps are ignored.
func (c *Channel) handleUpdate(ctx context.Context, u tgbotapi.Update) {
	switch {
	case u.CallbackQuery != nil:
		c.handleCallback(ctx, u.CallbackQuery)
	case u.Message != nil:
		c.handleMessage(ctx, u.Message)
	case u.MyChatMember != nil:
		// The bot was added to or removed from a chat: say where, so
		// that operators can find the chat id for their routes.
		m := u.MyChatMember
		c.log.Info("bot membership changed", "chat", m.Chat.ID, "chat_type", m.Chat.Type,
			"chat_title", m.Chat.Title, "status", m.NewChatMember.Status, "by", m.From.ID)
	}
}

// inbound is the broker's view of who acted where.
func inbound(chat *tgbotapi.Chat, from *tgbotapi.User) broker.Inbound {
	name := from.FirstName
	if from.UserName != "" {
		name = "@" + from.UserName
	}
	return broker.Inbound{
		Channel: Name,
		Chat:    strconv.FormatInt(chat.ID, 10),
		User:    strconv.FormatInt(from.ID, 10),
		Name:    name,
		Private: chat.Type == "private",
		// Groups chat: "pending …" there is talk, not a command,
		// unless it replies to a question message.
		VerbsNeedSlash: true,
	}
}

// handleCallback handles a button tap. Every tap is answered, or the
// person's client keeps spinning.
func (c *Channel) handleCallback(ctx context.Context, cq *tgbotapi.CallbackQuery) {
	if cq.Message == nil || cq.Message.Chat == nil || cq.From == nil {
		var user string
		if cq.From != nil {
			user = strconv.FormatInt(cq.From.ID, 10)
		}
		c.answerCallback(ctx, cq.ID, c.words(user).T("dialog.telegram.button_gone"), true)
		return
	}
	in := inbound(cq.Message.Chat, cq.From)
	s, ok := decodeButton(cq.Data)
	if !ok {
		c.log.Info("unknown button data", "chat", in.Chat)
		c.answerCallback(ctx, cq.ID, c.words(in.User).T("dialog.telegram.button_unknown"), true)
		return
	}
	switch s.Kind {
	case broker.StepOther, broker.StepNote:
		c.askText(ctx, cq, in, s)
	case broker.StepWithNote:
		c.sendWithNote(ctx, cq, in, s)
	case broker.StepDropNote:
		c.dropNote(ctx, cq, in, s)
	default:
		c.sendStep(ctx, cq, in, s)
	}
}

// decodeButton reads a button's callback data: a broker.Step, or the
// data of a button an earlier release posted (legacy.go).
func decodeButton(data string) (broker.Step, bool) {
	if s, err := broker.DecodeStep(data); err == nil {
		return s, true
	}
	return legacyStep(data)
}

// sendStep sends the command of a tapped step to the broker and shows
// its reply as the tap's toast.
func (c *Channel) sendStep(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound, s broker.Step) {
	cmd, ok := s.Command("")
	if !ok {
		// Submit with nothing ticked.
		c.answerCallback(ctx, cq.ID, c.words(in.User).T("dialog.telegram.nothing_ticked"), false)
		return
	}
	in.Text = cmd
	reply := c.h.HandleInbound(ctx, in)
	if reply.Ignored {
		c.answerCallback(ctx, cq.ID, "", false)
		return
	}
	c.answerCallback(ctx, cq.ID, c.tapToast(s, reply), !reply.OK)
}

func (c *Channel) answerCallback(ctx context.Context, id, text string, alert bool) {
	cb := tgbotapi.NewCallback(id, toast(text))
	cb.ShowAlert = alert && text != ""
	if err := c.request(ctx, "answer callback", cb); err != nil {
		c.log.Warn("answering a button tap failed", "err", err)
	}
}

// tapToast is what a tapped button says: the broker's reply, and after a
// toggle that left options ticked, what to tap next. The broker redraws
// every copy of the question with the new selection.
func (c *Channel) tapToast(s broker.Step, reply broker.Reply) string {
	toggle := s.Kind == broker.StepToggle
	if s.Legacy != "" {
		cmd, err := broker.Parse(s.Legacy)
		toggle = err == nil && cmd.Verb == broker.VerbToggle
	}
	if !toggle || !reply.OK || reply.Question == nil {
		return reply.Text
	}
	card := c.card(reply.Question)
	if card.Current < 0 {
		return reply.Text
	}
	p := card.Prompts[card.Current]
	if submit, ok := p.Control(broker.ControlSubmit); ok && len(tickedOptions(p)) > 0 {
		return reply.Text + " " + i18n.For(card.Locale).T("dialog.telegram.tap_when_ready", submit.Label)
	}
	return reply.Text
}

// freeTextPrompt reads the commands shown in a force-reply message this
// channel sent after Other (its code entities, "/answer k7m2qx.2 other …"
// and "/answer k7m2qx 1,3 other …"), so that a reply to it is understood
// even after a restart. ok is false when the message shows no such
// command; note is true when one of them carries options: the box held
// its reply for a choice, and a reply after a restart is refused, since
// the keyboard that would send it can no longer be drawn.
func freeTextPrompt(m *tgbotapi.Message) (cmd broker.Command, note, ok bool) {
	text := utf16.Encode([]rune(m.Text))
	for _, e := range m.Entities {
		if e.Type != "code" || e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(text) {
			continue
		}
		c, err := broker.Parse(string(utf16.Decode(text[e.Offset : e.Offset+e.Length])))
		if err != nil || c.Verb != broker.VerbAnswer || !strings.HasSuffix(c.Choice, " …") {
			continue
		}
		switch {
		case broker.ParseChoice(c.Choice).Kind == broker.ChoiceOther:
			if !ok {
				cmd, ok = c, true
			}
		case strings.HasSuffix(c.Choice, " "+broker.OtherWord+" …"):
			cmd, note, ok = c, true, true
		}
	}
	return cmd, note, ok
}

// askText answers the Other control (StepOther, and the "Note…" of
// buttons posted before it was folded into Other: StepNote) with a
// force-reply message that asks for text. On a prompt without options the
// reply is the Other answer. On a prompt with options the box is the
// card's one "Other or note…": the reply is held (holdNote) and the
// keyboard then offers each option, or Submit, with it as the note, and
// "Send as my answer" for the text alone.
func (c *Channel) askText(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound, s broker.Step) {
	q, refused := c.read(ctx, in, s.Ref.ID)
	if q == nil {
		c.answerCallback(ctx, cq.ID, refused.Text, true)
		return
	}
	i := s.Ref.Index
	card := c.card(q)
	w := i18n.For(card.Locale)
	if !q.Open(i) {
		c.answerCallback(ctx, cq.ID, w.T("dialog.telegram.earlier_step"), true)
		return
	}
	p := card.Prompts[i]
	if _, ok := p.Control(broker.ControlOther); !ok {
		c.answerCallback(ctx, cq.ID, w.T("dialog.telegram.no_typed_answer"), true)
		return
	}
	hold := len(p.Options) > 0
	chat := cq.Message.Chat
	var b strings.Builder
	b.WriteString("✍️ ")
	mention := ""
	if chat.Type != "private" {
		name := cq.From.FirstName
		if name == "" {
			name = cq.From.UserName
		}
		mention = `<a href="tg://user?id=` + strconv.FormatInt(cq.From.ID, 10) + `">` + esc(name) + "</a>, "
	}
	// ask is the prompt's first sentence, after the person's name in a
	// group.
	ask := func(id string, args ...any) {
		text := w.T(id, args...)
		if mention == "" {
			text = capitalized(text)
		}
		b.WriteString(mention + esc(text) + " <b>" + esc(trim(p.Question, 1000, w.T("text.shortened"))) + "</b>\n")
	}
	answer := code(stepCommand(broker.Step{Kind: broker.StepOther, Ref: p.Ref}, "…"))
	alone := w.T("dialog.telegram.send_as_answer")
	toast, placeholder := w.T("dialog.telegram.toast_answer"), w.T("dialog.telegram.placeholder_answer")
	if hold {
		toast, placeholder = w.T("dialog.telegram.toast_note", alone), w.T("dialog.telegram.placeholder_note")
	}
	switch {
	case !hold:
		ask("dialog.telegram.ask_answer")
		b.WriteString(italicText(w, "dialog.telegram.same_as", answer))
	case p.MultiSelect:
		submit, _ := p.Control(broker.ControlSubmit)
		ticked := tickedOptions(p)
		with, then := w.T("dialog.telegram.ticked_none"), w.T("dialog.telegram.then_tick", submit.Label)
		if len(ticked) > 0 {
			nums := make([]string, len(ticked))
			for k, v := range ticked {
				nums[k] = strconv.Itoa(v + 1)
			}
			with, then = strings.Join(nums, ", "), w.T("dialog.telegram.then_tap", submit.Label)
		} else {
			ticked = []int{0}
		}
		withNote := code(stepCommand(broker.Step{Kind: broker.StepOther, Ref: p.Ref, Options: ticked}, "…"))
		ask("dialog.telegram.ask_note_multi", with)
		b.WriteString(italicText(w, "dialog.telegram.then_multi", then, alone, withNote, answer))
		toast = w.T("dialog.telegram.toast_note_multi", submit.Label, alone)
	default:
		first := code(stepCommand(broker.Step{Kind: broker.StepOther, Ref: p.Ref, Options: []int{0}}, "…"))
		ask("dialog.telegram.ask_note")
		b.WriteString(italicText(w, "dialog.telegram.then_option", alone, first, answer))
	}
	if held, ok := c.notes.get(noteKey{q.ID, i}); ok && hold {
		b.WriteString("\n" + italicText(w, "dialog.telegram.replaces", trim(held, 200, w.T("text.shortened"))))
	}
	msg := tgbotapi.NewMessage(chat.ID, b.String())
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyToMessageID = cq.Message.MessageID
	msg.AllowSendingWithoutReply = true
	msg.ReplyMarkup = tgbotapi.ForceReply{ForceReply: true, Selective: true, InputFieldPlaceholder: placeholder}
	sent, err := c.send(ctx, "ask free text for "+q.ID, msg)
	if err != nil {
		c.log.Warn("asking for free text failed", "question_id", q.ID, "chat", chat.ID, "err", err)
		c.answerCallback(ctx, cq.ID, w.T("dialog.telegram.box_failed"), true)
		return
	}
	c.others.put(chatMessage{chat.ID, sent.MessageID}, otherPrompt{ref: p.Ref, note: hold, message: cq.Message.MessageID}, c.now())
	c.answerCallback(ctx, cq.ID, toast, false)
}

// handleMessage handles typed text: commands, replies to a question or to
// a free-text prompt, and bare answers in private chats.
func (c *Channel) handleMessage(ctx context.Context, m *tgbotapi.Message) {
	text, files := m.Text, c.messageFiles(m)
	if len(files) > 0 {
		text = m.Caption // a photo or document: the caption is its text
	}
	if m.From == nil || m.From.IsBot || m.Chat == nil || (strings.TrimSpace(text) == "" && len(files) == 0) {
		return
	}
	if at := commandWithAt(m); strings.Contains(at, "@") {
		if to := at[strings.IndexByte(at, '@')+1:]; !strings.EqualFold(to, c.self().UserName) {
			return // a command for another bot in the group
		}
	}
	in := inbound(m.Chat, m.From)
	in.Text, in.Attachments = text, files
	var other *chatMessage
	var reply broker.Reply
	if r := m.ReplyToMessage; r != nil {
		in.ReplyTo = strconv.Itoa(r.MessageID)
		if !strings.HasPrefix(strings.TrimSpace(text), "/") {
			if p, ok := c.others.get(chatMessage{m.Chat.ID, r.MessageID}); ok {
				var ticked []int
				switch {
				case p.note && len(files) == 0:
					c.others.drop(chatMessage{m.Chat.ID, r.MessageID})
					reply = broker.Reply{OK: true, Text: c.holdNote(ctx, in, m.Chat.ID, p, strings.TrimSpace(text))}
				case p.note:
					// A file cannot wait in memory for a tap: it is the
					// answer now, with the options ticked so far.
					ticked = c.ticked(ctx, in, p.ref)
				}
				cmd, ok := broker.Step{Kind: broker.StepOther, Ref: p.ref, Options: ticked}.Command(text)
				in.Text, in.ReplyTo = cmd, ""
				if !ok {
					// No text, a file perhaps: the answer of the prompt
					// the box asked about.
					in.QuestionID, in.Prompt = p.ref.ID, p.ref.Index+1
				}
				other = &chatMessage{m.Chat.ID, r.MessageID}
			} else if r.From != nil && r.From.ID == c.self().ID {
				switch cmd, note, ok := freeTextPrompt(r); {
				case ok && note:
					reply = broker.Reply{Text: c.notKept(ctx, in, cmd.ID), Err: broker.ErrInvalid}
				case ok:
					// The prompt named the question: the reply is its
					// free-text answer, whatever it says.
					in.QuestionID, in.Prompt, in.ReplyTo = cmd.ID, cmd.Prompt, ""
					in.Text = ""
					if t := strings.TrimSpace(text); t != "" {
						in.Text = broker.OtherWord + " " + t
					}
				}
			}
		}
	}
	if reply.Text == "" {
		reply = c.h.HandleInbound(ctx, in)
	}
	c.log.Debug("message", "chat", in.Chat, "chat_type", m.Chat.Type, "chat_title", m.Chat.Title, "user", in.User, "ignored", reply.Ignored)
	if reply.OK && other != nil {
		c.others.drop(*other)
	}
	if reply.Ignored || reply.Text == "" {
		return
	}
	msg := tgbotapi.NewMessage(m.Chat.ID, plainText(reply.Text))
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyToMessageID = m.MessageID
	msg.AllowSendingWithoutReply = true
	msg.DisableWebPagePreview = true
	if _, err := c.send(ctx, "reply", msg); err != nil {
		c.log.Warn("replying to a message failed", "chat", in.Chat, "err", err)
	}
}

// commandWithAt is the command a message starts with, as typed
// ("/answer@askbridge_bot"), or "" when it starts with none. It reads the
// text up to the first space: tgbotapi's CommandWithAt slices the text by
// the command entity's length, which an update may carry as anything (0
// panics), and which Telegram counts in UTF-16 units, not bytes.
func commandWithAt(m *tgbotapi.Message) string {
	if !m.IsCommand() {
		return ""
	}
	if end := strings.IndexFunc(m.Text, unicode.IsSpace); end >= 0 {
		return m.Text[:end]
	}
	return m.Text
}
