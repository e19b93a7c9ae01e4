package telegram

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"

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
	in.Text = cq.Data
	switch data := cq.Data; {
	case strings.HasPrefix(data, "/"):
		reply := c.h.HandleInbound(ctx, in)
		if reply.Ignored {
			c.answerCallback(ctx, cq.ID, "", false)
			return
		}
		c.answerCallback(ctx, cq.ID, reply.Text, !reply.OK)
	case strings.HasPrefix(data, toggleData):
		c.toggle(ctx, cq, in)
	case strings.HasPrefix(data, otherData):
		c.askText(ctx, cq, otherData)
	case strings.HasPrefix(data, noteData):
		c.askText(ctx, cq, noteData)
	case strings.HasPrefix(data, withNoteData):
		c.sendWithNote(ctx, cq, in)
	case strings.HasPrefix(data, dropNoteData):
		c.dropNote(ctx, cq)
	case strings.HasPrefix(data, doneEmptyData):
		c.answerCallback(ctx, cq.ID, "Tap the options you want first, then Done.", false)
	default:
		c.log.Info("unknown button data", "chat", in.Chat)
		c.answerCallback(ctx, cq.ID, "This button is not from a current question.", true)
	}
}

func (c *Channel) answerCallback(ctx context.Context, id, text string, alert bool) {
	cb := tgbotapi.NewCallback(id, toast(text))
	cb.ShowAlert = alert && text != ""
	if err := c.request(ctx, "answer callback", cb); err != nil {
		c.log.Warn("answering a button tap failed", "err", err)
	}
}

// toggle flips one option of a multi-select prompt, then redraws the
// keyboard so that the check marks and the Done button's command match
// the selection kept in the store.
func (c *Channel) toggle(ctx context.Context, cq *tgbotapi.CallbackQuery, in broker.Inbound) {
	id, n, ok := parseStep(cq.Data, toggleData, 2)
	if !ok {
		c.answerCallback(ctx, cq.ID, "This button is not from a current question.", true)
		return
	}
	t, ok := c.h.(toggler)
	if !ok {
		c.answerCallback(ctx, cq.ID, "Type /answer "+id+" followed by the numbers, such as 1,3.", true)
		return
	}
	q, err := t.Toggle(ctx, in, id, n[0], n[1])
	if err != nil {
		c.answerCallback(ctx, cq.ID, refusalText(err), true)
		return
	}
	c.questions.put(q)
	kb, _ := c.keyboard(q, n[0])
	edit := tgbotapi.NewEditMessageReplyMarkup(cq.Message.Chat.ID, cq.Message.MessageID,
		tgbotapi.InlineKeyboardMarkup{InlineKeyboard: nonNil(kb)})
	if err := c.request(ctx, "redraw selection of "+id, edit); err != nil {
		c.log.Warn("redrawing the selection failed", "question_id", id, "err", err)
	}
	var labels []string
	for _, k := range broker.SelectedOptions(q.Selections[n[0]]) {
		if k < len(q.Prompts[n[0]].Options) {
			labels = append(labels, q.Prompts[n[0]].Options[k].Label)
		}
	}
	if len(labels) == 0 {
		c.answerCallback(ctx, cq.ID, "Nothing selected.", false)
		return
	}
	c.answerCallback(ctx, cq.ID, "Selected: "+strings.Join(labels, ", ")+". Tap Done when ready.", false)
}

// refusalText is the sentence in a broker error, without its class.
func refusalText(err error) string {
	var fe *broker.FieldError
	if errors.As(err, &fe) {
		return fe.Message
	}
	s := err.Error()
	for _, e := range []error{broker.ErrForbidden, broker.ErrInvalid, broker.ErrNotFound, broker.ErrClosed} {
		s = strings.TrimPrefix(s, e.Error()+": ")
	}
	return s
}

// otherTarget finds the command target in a force-reply prompt this
// channel sent ("… /answer k7m2qx.2 other …"), so that a reply to it is
// understood even after a restart. noteTarget finds a note prompt ("…
// /answer k7m2qx 1,3 other …", "… /answer k7m2qx N other …"), whose
// reply after a restart is refused: the choice it went with is gone.
var (
	otherTarget = regexp.MustCompile(`/answer ([a-z0-9]+(?:\.[1-9])?) other …`)
	noteTarget  = regexp.MustCompile(`/answer ([a-z0-9]+(?:\.[1-9])?) (?:N|[0-9,]+) other …`)
)

// otherQuestion splits the target of a free-text prompt ("k7m2qx.2")
// into the question id and its 1-based prompt (0 when not named).
func otherQuestion(target string) (string, int) {
	id, num, _ := strings.Cut(target, ".")
	n, _ := strconv.Atoi(num)
	return id, n
}

// askText answers "Other…" (kind otherData) or "Note…" (noteData) with a
// force-reply message that asks for text. The reply becomes
// broker.FormatOther, or is held as a note when it goes with a choice:
// after "Note…", or after "Other…" with options ticked.
func (c *Channel) askText(ctx context.Context, cq *tgbotapi.CallbackQuery, kind string) {
	id, n, ok := parseStep(cq.Data, kind, 1)
	q := c.questions.get(id)
	if !ok || q == nil || n[0] >= len(q.Prompts) {
		c.answerCallback(ctx, cq.ID, "Reply to the question message with your own answer.", true)
		return
	}
	i := n[0]
	_, canToggle := c.h.(toggler)
	ticked := broker.SelectedOptions(q.Selections[i])
	note := kind == noteData || (canToggle && q.Prompts[i].MultiSelect && len(ticked) > 0)
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
	question := "<b>" + esc(trim(q.Prompts[i].Question, 1000, shortenedMark)) + "</b>\n"
	toast := "Type your answer in the reply box."
	switch {
	case kind == noteData:
		b.WriteString("type a note for: " + question)
		b.WriteString("<i>(then tap the option it goes with; the same as typing</i> <code>" + esc(broker.FormatAnswer(q, i, "N "+broker.OtherWord+" …")) + "</code><i>)</i>")
		toast = "Type your note in the reply box, then tap the option."
	case note:
		nums := make([]string, len(ticked))
		for k, v := range ticked {
			nums[k] = strconv.Itoa(v + 1)
		}
		b.WriteString("type a note to go with " + strings.Join(nums, ", ") + " for: " + question)
		b.WriteString("<i>(then tap Done; the same as typing</i> <code>" + esc(broker.FormatOptionsOther(q, i, ticked, "…")) + "</code><i>)</i>")
		toast = "Type your note in the reply box, then tap Done."
	default:
		b.WriteString("type your answer for: " + question)
		b.WriteString("<i>(same as typing</i> <code>" + esc(broker.FormatOther(q, i, "…")) + "</code><i>)</i>")
	}
	msg := tgbotapi.NewMessage(chat.ID, b.String())
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyToMessageID = cq.Message.MessageID
	msg.AllowSendingWithoutReply = true
	placeholder := "Your answer"
	if note {
		placeholder = "Your note"
	}
	msg.ReplyMarkup = tgbotapi.ForceReply{ForceReply: true, Selective: true, InputFieldPlaceholder: placeholder}
	sent, err := c.send(ctx, "ask free text for "+id, msg)
	if err != nil {
		c.log.Warn("asking for free text failed", "question_id", id, "chat", chat.ID, "err", err)
		c.answerCallback(ctx, cq.ID, "Could not open the answer box; reply to the question message with your answer.", true)
		return
	}
	c.others.put(chatMessage{chat.ID, sent.MessageID}, otherPrompt{q: q, prompt: i, note: note, message: cq.Message.MessageID}, c.now())
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
	if at := m.CommandWithAt(); strings.Contains(at, "@") {
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
				if p.note {
					c.others.drop(chatMessage{m.Chat.ID, r.MessageID})
					reply = broker.Reply{OK: true, Text: c.holdNote(ctx, m.Chat.ID, p, strings.TrimSpace(text))}
				}
				in.Text, in.ReplyTo = broker.FormatOther(p.q, p.prompt, strings.TrimSpace(text)), ""
				if strings.TrimSpace(text) == "" {
					in.Text, in.QuestionID, in.Prompt = "", p.q.ID, p.prompt+1
				}
				other = &chatMessage{m.Chat.ID, r.MessageID}
			} else if r.From != nil && r.From.ID == c.self().ID {
				switch t := otherTarget.FindStringSubmatch(r.Text); {
				case t != nil:
					in.Text, in.ReplyTo = "/answer "+t[1]+" other "+strings.TrimSpace(text), ""
					if strings.TrimSpace(text) == "" {
						in.Text = ""
						in.QuestionID, in.Prompt = otherQuestion(t[1])
					}
				case noteTarget.MatchString(r.Text):
					reply = broker.Reply{Text: "Your note was not kept (the bridge restarted); nothing was recorded. Tap Other… or Note… again, or type the command shown above with your note.", Err: broker.ErrInvalid}
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
