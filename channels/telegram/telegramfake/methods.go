package telegramfake

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"time"
)

type handler func(p url.Values) (any, *Failure)

func (s *Server) handlers() map[string]handler {
	return map[string]handler{
		"getMe":                  func(url.Values) (any, *Failure) { return s.bot, nil },
		"sendMessage":            s.sendMessage,
		"editMessageText":        s.editMessageText,
		"editMessageReplyMarkup": s.editMessageReplyMarkup,
		"answerCallbackQuery":    s.answerCallbackQuery,
		"setWebhook":             s.setWebhook,
		"deleteWebhook":          s.deleteWebhook,
		"getWebhookInfo":         s.getWebhookInfo,
		"getFile":                s.getFile,
	}
}

func badRequest(desc string) *Failure {
	return &Failure{Code: 400, Description: "Bad Request: " + desc}
}

// chatFor resolves chat_id the way Telegram does; callers hold s.mu.
func (s *Server) chatFor(p url.Values) (*Chat, *Failure) {
	raw := p.Get("chat_id")
	if raw == "" {
		return nil, badRequest("chat_id is empty")
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	c, ok := s.chats[id]
	if !ok {
		return nil, badRequest("chat not found")
	}
	if s.blocked[id] {
		if c.Type == "private" {
			return nil, &Failure{Code: 403, Description: "Forbidden: bot was blocked by the user"}
		}
		return nil, &Failure{Code: 403, Description: "Forbidden: bot was kicked from the group chat"}
	}
	return c, nil
}

type markup struct {
	InlineKeyboard *[][]Button `json:"inline_keyboard"`
	ForceReply     bool        `json:"force_reply"`
}

// parseMarkup reads reply_markup; keyboard is nil when absent.
func parseMarkup(raw string) (keyboard [][]Button, force bool, f *Failure) {
	if raw == "" {
		return nil, false, nil
	}
	var m markup
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, false, badRequest("can't parse reply keyboard markup JSON object")
	}
	if m.InlineKeyboard != nil {
		keyboard = *m.InlineKeyboard
		if keyboard == nil {
			keyboard = [][]Button{}
		}
		for _, row := range keyboard {
			for _, b := range row {
				if b.Text == "" {
					return nil, false, badRequest("text buttons are unallowed in the inline keyboard")
				}
				if b.URL == "" && (len(b.CallbackData) == 0 || len(b.CallbackData) > 64) {
					return nil, false, badRequest("BUTTON_DATA_INVALID")
				}
			}
		}
	}
	return keyboard, m.ForceReply, nil
}

// render parses text as Telegram would for parse_mode.
func render(text, mode string) (string, []Entity, *Failure) {
	if text == "" {
		return "", nil, badRequest("message text is empty")
	}
	plain, ents := text, []Entity(nil)
	switch mode {
	case "":
	case "HTML":
		var err error
		plain, ents, err = parseHTML(text)
		if err != nil {
			return "", nil, &Failure{Code: 400, Description: err.Error()}
		}
	default:
		return "", nil, badRequest("unsupported parse_mode " + strconv.Quote(mode) + " in this fake")
	}
	if utf16Len(plain) > 4096 {
		return "", nil, badRequest("message is too long")
	}
	if len([]rune(plain)) == 0 {
		return "", nil, badRequest("message text is empty")
	}
	return plain, ents, nil
}

func (s *Server) sendMessage(p url.Values) (any, *Failure) {
	c, f := s.chatFor(p)
	if f != nil {
		return nil, f
	}
	plain, ents, f := render(p.Get("text"), p.Get("parse_mode"))
	if f != nil {
		return nil, f
	}
	kb, force, f := parseMarkup(p.Get("reply_markup"))
	if f != nil {
		return nil, f
	}
	replyTo, f := s.replyTarget(c.ID, p)
	if f != nil {
		return nil, f
	}
	m := s.addMessage(c.ID, s.bot, p.Get("text"), replyTo)
	m.Text, m.Entities, m.ParseMode = plain, ents, p.Get("parse_mode")
	if len(kb) > 0 {
		m.Keyboard = kb
	}
	m.ForceReply = force
	return s.messageJSON(m), nil
}

// addMessage stores a new message in a chat; callers hold s.mu.
func (s *Server) addMessage(chat int64, from User, text string, replyTo int) *Message {
	s.nextMsg[chat]++
	m := &Message{ChatID: chat, ID: s.nextMsg[chat], From: from, Text: text, HTML: text, ReplyTo: replyTo, Date: time.Now().Unix()}
	s.msgs[msgKey{chat, m.ID}] = m
	return m
}

func (s *Server) editTarget(p url.Values) (*Message, *Failure) {
	chat, err1 := strconv.ParseInt(p.Get("chat_id"), 10, 64)
	id, err2 := strconv.Atoi(p.Get("message_id"))
	if err1 != nil || err2 != nil {
		return nil, badRequest("message identifier is not specified")
	}
	if _, ok := s.chats[chat]; !ok {
		return nil, badRequest("chat not found")
	}
	m, ok := s.msgs[msgKey{chat, id}]
	if !ok {
		return nil, badRequest("message to edit not found")
	}
	if m.From.ID != s.bot.ID {
		return nil, badRequest("message can't be edited")
	}
	return m, nil
}

const notModified = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"

func sameKeyboard(a, b [][]Button) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func (s *Server) editMessageText(p url.Values) (any, *Failure) {
	m, f := s.editTarget(p)
	if f != nil {
		return nil, f
	}
	plain, ents, f := render(p.Get("text"), p.Get("parse_mode"))
	if f != nil {
		return nil, f
	}
	kb, _, f := parseMarkup(p.Get("reply_markup"))
	if f != nil {
		return nil, f
	}
	if m.HTML == p.Get("text") && m.ParseMode == p.Get("parse_mode") && sameKeyboard(m.Keyboard, kb) {
		return nil, badRequest(notModified)
	}
	m.Text, m.HTML, m.Entities, m.ParseMode = plain, p.Get("text"), ents, p.Get("parse_mode")
	m.Keyboard = nil
	if len(kb) > 0 {
		m.Keyboard = kb
	}
	m.Edits++
	return s.messageJSON(m), nil
}

func (s *Server) editMessageReplyMarkup(p url.Values) (any, *Failure) {
	m, f := s.editTarget(p)
	if f != nil {
		return nil, f
	}
	kb, _, f := parseMarkup(p.Get("reply_markup"))
	if f != nil {
		return nil, f
	}
	if sameKeyboard(m.Keyboard, kb) {
		return nil, badRequest(notModified)
	}
	m.Keyboard = nil
	if len(kb) > 0 {
		m.Keyboard = kb
	}
	m.Edits++
	return s.messageJSON(m), nil
}

func (s *Server) answerCallbackQuery(p url.Values) (any, *Failure) {
	a, ok := s.callbacks[p.Get("callback_query_id")]
	if !ok || a.Answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	text := p.Get("text")
	if utf16Len(text) > 200 {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	a.Answered, a.Text, a.ShowAlert = true, text, p.Get("show_alert") == "true"
	return true, nil
}

func (s *Server) setWebhook(p url.Values) (any, *Failure) {
	u := p.Get("url")
	if u == "" {
		return s.deleteWebhook(p)
	}
	if _, err := url.ParseRequestURI(u); err != nil {
		return nil, badRequest("bad webhook: invalid URL")
	}
	tok := p.Get("secret_token")
	for _, r := range tok {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return nil, badRequest("secret token contains unallowed characters")
		}
	}
	s.webhookURL, s.secret = u, tok
	s.pollGen++
	return true, nil
}

func (s *Server) deleteWebhook(url.Values) (any, *Failure) {
	s.webhookURL, s.secret = "", ""
	return true, nil
}

func (s *Server) getWebhookInfo(url.Values) (any, *Failure) {
	return map[string]any{"url": s.webhookURL, "has_custom_certificate": false, "pending_update_count": len(s.updates)}, nil
}

// messageJSON is a message as the Bot API returns it; callers hold s.mu.
func (s *Server) messageJSON(m *Message) map[string]any {
	out := map[string]any{
		"message_id": m.ID,
		"from":       m.From,
		"chat":       s.chats[m.ChatID],
		"date":       m.Date,
		"text":       m.Text,
	}
	if len(m.Entities) > 0 {
		out["entities"] = m.Entities
	}
	if len(m.Keyboard) > 0 {
		out["reply_markup"] = map[string]any{"inline_keyboard": m.Keyboard}
	}
	if m.Document != nil {
		documentJSON(m, out)
	}
	if m.ReplyTo != 0 {
		if r, ok := s.msgs[msgKey{m.ChatID, m.ReplyTo}]; ok {
			inner := s.messageJSON(&Message{ChatID: r.ChatID, ID: r.ID, From: r.From, Text: r.Text, Entities: r.Entities, Keyboard: r.Keyboard, Date: r.Date})
			out["reply_to_message"] = inner
		}
	}
	return out
}
