package telegram

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/backoff"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/logthrottle"
)

// Name is the channel's name in routes ("telegram:-100123").
const Name = "telegram"

// Channel is the Telegram channel. It is safe for concurrent use.
type Channel struct {
	// langs and locale choose the language of each copy (localeOf).
	langs  *broker.Languages
	locale string
	cfg    Config
	h      broker.InboundHandler
	log    *slog.Logger
	bot    *tgbotapi.BotAPI
	// me is the bot's own user, learnt with getMe (identify).
	me atomic.Pointer[tgbotapi.User]
	// now is the clock; loc places the times shown to people.
	now    func() time.Time
	loc    *time.Location
	http   *http.Client
	token  string
	secret string
	// sleep waits out rate limits; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error

	others *otherPrompts
	notes  *heldNotes
	// drawing serialises the edits of each message (editlock.go).
	drawing messageLocks
	seen    *recentUpdates
	// refusals logs refused webhook requests at most once a second.
	refusals *logthrottle.Logger
}

var (
	_ broker.Channel   = (*Channel)(nil)
	_ broker.Updater   = (*Channel)(nil)
	_ channels.Router  = (*Channel)(nil)
	_ broker.Reminder  = (*Channel)(nil)
	_ broker.Runner    = (*Channel)(nil)
	_ broker.Singleton = (*Channel)(nil)
)

// New checks cfg and reads the bot token (and webhook secret) from the
// environment variables it names. It makes no network call: Run asks
// Telegram who the bot is (getMe) before it receives anything. h
// receives every person's action.
func New(cfg Config, h broker.InboundHandler, opts channels.Options) (*Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("telegram: an inbound handler is required")
	}
	cfg = cfg.withDefaults()
	token, secret, err := cfg.secrets()
	if err != nil {
		return nil, err
	}
	opts = opts.For(Name)
	locale, err := i18n.Parse(cfg.Locale)
	if err != nil {
		return nil, fmt.Errorf("%s: locale: %w", Name, err)
	}
	c := &Channel{
		langs: opts.Languages, locale: locale,
		cfg: cfg, h: h, log: opts.Logger, now: opts.Now, loc: opts.Location,
		refusals: logthrottle.New(opts.Logger, time.Second),
		http:     &http.Client{Transport: http.DefaultTransport},
		token:    token, secret: secret,
		sleep:  backoff.Sleep,
		others: newOtherPrompts(),
		notes:  newHeldNotes(),
		seen:   newRecentUpdates(),
	}
	c.bot = &tgbotapi.BotAPI{Token: token, Client: c.http, Buffer: 100}
	c.bot.SetAPIEndpoint(cfg.APIURL + "/bot%s/%s")
	return c, nil
}

// Name returns "telegram".
func (c *Channel) Name() string { return Name }

// BotUsername returns the bot's @username without the @, once Run (or
// the first webhook update) has learnt it; "" before.
func (c *Channel) BotUsername() string { return c.self().UserName }

// parseChat reads a chat id as routes write it.
func parseChat(chat string) (int64, error) {
	id, err := strconv.ParseInt(chat, 10, 64)
	if err != nil || id == 0 {
		return 0, broker.Permanent(fmt.Errorf("telegram: chat %q is not a numeric chat id (see docs/telegram.md to find it)", chat))
	}
	return id, nil
}

func parseMessageID(ref broker.MessageRef) (int64, int, error) {
	chat, err := parseChat(ref.Chat)
	if err != nil {
		return 0, 0, err
	}
	id, err := strconv.Atoi(ref.MessageID)
	if err != nil || id <= 0 {
		return 0, 0, broker.Permanent(fmt.Errorf("telegram: message id %q is not a Telegram message id", ref.MessageID))
	}
	return chat, id, nil
}

// Post renders q and sends it to chat, returning the message reference.
// When the message shows the context shortened, the whole context follows
// as a reply to it (wholecontext.go). Chat not found, a bot blocked or
// removed, and a revoked token are returned as broker.Permanent.
func (c *Channel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	id, err := parseChat(chat)
	if err != nil {
		return broker.MessageRef{}, err
	}
	v := c.render(q)
	msg := tgbotapi.NewMessage(id, v.text)
	msg.ParseMode = tgbotapi.ModeHTML
	msg.DisableWebPagePreview = true
	if len(v.keyboard) > 0 {
		msg.ReplyMarkup = tgbotapi.InlineKeyboardMarkup{InlineKeyboard: v.keyboard}
	}
	sent, err := c.sendOnce(ctx, "post question "+q.ID, msg)
	if err != nil {
		return broker.MessageRef{}, err
	}
	c.log.Info("question posted", "question_id", q.ID, "chat", chat, "message_id", sent.MessageID)
	if v.contextCut {
		c.replyWholeContext(ctx, q, chat, id, sent.MessageID) // logs its failure, never returns it
	}
	return broker.MessageRef{
		Channel: Name, Chat: chat,
		MessageID: strconv.Itoa(sent.MessageID),
		PostedAt:  c.now().UTC(),
	}, nil
}

// Update edits the posted copy m to show q as it stands: the outcome with
// the keyboard removed once q is resolved, or the dialog's progress with
// the keyboard of the next prompt while it is pending.
func (c *Channel) Update(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	chat, id, err := parseMessageID(m)
	if err != nil {
		return err
	}
	defer c.drawing.lock(chat, id)()
	for i := range q.Prompts {
		if !q.Open(i) {
			c.notes.drop(noteKey{q.ID, i}) // the prompt is answered: its note went, or never will
		}
	}
	var edit tgbotapi.EditMessageTextConfig
	if q.Status.Terminal() {
		edit = tgbotapi.NewEditMessageTextAndMarkup(chat, id, c.renderOutcome(q),
			tgbotapi.InlineKeyboardMarkup{InlineKeyboard: [][]tgbotapi.InlineKeyboardButton{}})
	} else {
		v := c.render(q)
		edit = tgbotapi.NewEditMessageTextAndMarkup(chat, id, v.text,
			tgbotapi.InlineKeyboardMarkup{InlineKeyboard: nonNil(v.keyboard)})
	}
	edit.ParseMode = tgbotapi.ModeHTML
	edit.DisableWebPagePreview = true
	return c.requestOnce(ctx, "update question "+q.ID, edit)
}

// Remind replies to the question message with the card's reminder. A
// question no longer pending has none, and nothing is sent.
func (c *Channel) Remind(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	chat, id, err := parseMessageID(m)
	if err != nil {
		return err
	}
	text := c.card(q).Reminder
	if text == "" {
		return nil
	}
	msg := tgbotapi.NewMessage(chat, "⏰ "+esc(text))
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyToMessageID = id
	msg.AllowSendingWithoutReply = true
	_, err = c.sendOnce(ctx, "remind question "+q.ID, msg)
	return err
}

func nonNil(kb [][]tgbotapi.InlineKeyboardButton) [][]tgbotapi.InlineKeyboardButton {
	if kb == nil {
		return [][]tgbotapi.InlineKeyboardButton{}
	}
	return kb
}

// localeOf is the language of this channel's copy of q: the person's for
// a direct message, else the route's, else the channel's (broker.Languages).
func (c *Channel) localeOf(q *broker.Question) string {
	if l := c.langs.Locale(q, Name); l != "" {
		return l
	}
	return c.locale
}
