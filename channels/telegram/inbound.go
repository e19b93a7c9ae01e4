package telegram

import (
	"context"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
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
		c.answerCallback(ctx, cq.ID, "This button no longer works.", true)
		return
	}
	in := inbound(cq.Message.Chat, cq.From)
	s, ok := decodeButton(cq.Data)
	if !ok {
		c.log.Info("unknown button data", "chat", in.Chat)
		c.answerCallback(ctx, cq.ID, "This button is not from a current question.", true)
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
		c.answerCallback(ctx, cq.ID, "Nothing is ticked yet: tap the options you want first.", false)
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
		return reply.Text + " Tap " + submit.Label + " when ready."
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
	if !q.Open(i) {
		c.answerCallback(ctx, cq.ID, "This button is from an earlier step: use the buttons of the question as it stands now.", true)
		return
	}
	p := c.card(q).Prompts[i]
	if _, ok := p.Control(broker.ControlOther); !ok {
		c.answerCallback(ctx, cq.ID, "This question takes no typed answer: tap one of its options.", true)
		return
	}
	hold := len(p.Options) > 0
	chat := cq.Message.Chat
	var b strings.Builder
	b.WriteString("✍️ ")
	if chat.Type != "private" {
		name := cq.From.FirstName
		if name == "" {
			name = cq.From.UserName
		}
		b.WriteString(`<a href="tg://user?id=` + strconv.FormatInt(cq.From.ID, 10) + `">` + esc(name) + "</a>, ")
	}
	question := "<b>" + esc(trim(p.Question, 1000, shortenedMark)) + "</b>\n"
	answer := "<code>" + esc(stepCommand(broker.Step{Kind: broker.StepOther, Ref: p.Ref}, "…")) + "</code>"
	toast, placeholder := "Type your answer in the reply box.", "Your answer"
	if hold {
		toast, placeholder = "Type in the reply box, then tap the option it goes with or "+labelSendAsAnswer+".", "Your answer or note"
	}
	switch {
	case !hold:
		b.WriteString("type your answer for: " + question)
		b.WriteString("<i>(same as typing</i> " + answer + "<i>)</i>")
	case p.MultiSelect:
		submit, _ := p.Control(broker.ControlSubmit)
		ticked := tickedOptions(p)
		with, then := "the options you tick", "tick options and tap "+esc(submit.Label)
		if len(ticked) > 0 {
			nums := make([]string, len(ticked))
			for k, v := range ticked {
				nums[k] = strconv.Itoa(v + 1)
			}
			with, then = strings.Join(nums, ", "), "tap "+esc(submit.Label)
		} else {
			ticked = []int{0}
		}
		withNote := "<code>" + esc(stepCommand(broker.Step{Kind: broker.StepOther, Ref: p.Ref, Options: ticked}, "…")) + "</code>"
		b.WriteString("type your answer, or a note to go with " + with + ", for: " + question)
		b.WriteString("<i>(then " + then + " to send it as the note, or " + labelSendAsAnswer + " to send it alone; the same as typing</i> " +
			withNote + " <i>or</i> " + answer + "<i>)</i>")
		toast = "Type in the reply box, then tap " + submit.Label + " or " + labelSendAsAnswer + "."
	default:
		first := "<code>" + esc(stepCommand(broker.Step{Kind: broker.StepOther, Ref: p.Ref, Options: []int{0}}, "…")) + "</code>"
		b.WriteString("type your answer, or a note to go with an option, for: " + question)
		b.WriteString("<i>(then tap the option it goes with, or " + labelSendAsAnswer + " to send it alone; the same as typing</i> " +
			first + " <i>for option 1, or</i> " + answer + "<i>)</i>")
	}
	if held, ok := c.notes.get(noteKey{q.ID, i}); ok && hold {
		b.WriteString("\n<i>It replaces “" + esc(trim(held, 200, shortenedMark)) + "”.</i>")
	}
	msg := tgbotapi.NewMessage(chat.ID, b.String())
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyToMessageID = cq.Message.MessageID
	msg.AllowSendingWithoutReply = true
	msg.ReplyMarkup = tgbotapi.ForceReply{ForceReply: true, Selective: true, InputFieldPlaceholder: placeholder}
	sent, err := c.send(ctx, "ask free text for "+q.ID, msg)
	if err != nil {
		c.log.Warn("asking for free text failed", "question_id", q.ID, "chat", chat.ID, "err", err)
		c.answerCallback(ctx, cq.ID, "Could not open the reply box; reply to the question message with your answer.", true)
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
