package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/logthrottle"
)

// Name is the channel's name in routes ("slack:C0123ABC").
const Name = "slack"

// Compile-time checks of the contracts the channel implements.
var (
	_ broker.Channel  = (*Channel)(nil)
	_ broker.Updater  = (*Channel)(nil)
	_ channels.Router = (*Channel)(nil)
	_ broker.Reminder = (*Channel)(nil)
	_ broker.Runner   = (*Channel)(nil)
)

// Channel posts questions to Slack and turns Slack interactions into
// broker.Inbound. Create it with New.
type Channel struct {
	// langs and locale choose the language of each copy (localeOf).
	langs   *broker.Languages
	locale  string
	cfg     Config
	secrets secrets
	api     *slackapi.Client
	// paced is the client of the outbox's calls (Post, Update, Remind),
	// which does not resend a 429 itself: the outbox paces the call again
	// after Slack's Retry-After, so that a resent call never takes the
	// turn of a paced one.
	paced *slackapi.Client
	httpc *http.Client
	h     broker.InboundHandler
	log   *slog.Logger
	now   func() time.Time
	// loc places the times shown to people.
	loc *time.Location

	// replay remembers the deliveries taken (signed requests, Events API
	// event ids), to drop replays and redelivered events: the store's
	// guard, shared by every instance, or one in memory (replay.go).
	replay broker.ReplayGuard
	// names caches user names of message authors.
	names *nameCache

	// work tracks inbound processing and the acks waiting for it.
	work sync.WaitGroup
	// ackWithin bounds the wait for an action to be recorded before its
	// delivery is acknowledged (defaultAckWithin; tests shorten it).
	ackWithin time.Duration
	// throttled logs refusals and slow acks at most once a second each.
	throttled *logthrottle.Logger
}

// New builds a Slack channel from cfg; it reads the tokens from the
// environment variables cfg names and makes no network call (Run checks
// the token with auth.test). h receives every person's action (the
// broker).
func New(cfg Config, h broker.InboundHandler, opts channels.Options) (*Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("slack: an inbound handler is required")
	}
	cfg = cfg.withDefaults()
	sec, err := cfg.readSecrets()
	if err != nil {
		return nil, err
	}
	opts = opts.For(Name)
	locale, err := i18n.Parse(cfg.Locale)
	if err != nil {
		return nil, fmt.Errorf("%s: locale: %w", Name, err)
	}
	log := opts.Logger
	c := &Channel{
		langs: opts.Languages, locale: locale,
		cfg: cfg, secrets: sec, h: h, log: log, now: opts.Now, loc: opts.Location,
		replay:    opts.Replay,
		names:     newNameCache(1024),
		httpc:     &http.Client{Timeout: 30 * time.Second},
		ackWithin: defaultAckWithin,
		throttled: logthrottle.New(log, time.Second),
	}
	if c.replay == nil {
		c.replay = newMemoryGuard(4096)
	}
	c.paced = slackapi.New(sec.botToken,
		slackapi.OptionAPIURL(cfg.APIURL+"/"),
		slackapi.OptionHTTPClient(c.httpc),
	)
	c.api = slackapi.New(sec.botToken,
		slackapi.OptionAPIURL(cfg.APIURL+"/"),
		slackapi.OptionAppLevelToken(sec.appToken),
		slackapi.OptionHTTPClient(c.httpc),
		// The calls made directly (a reply to a person, a modal) retry
		// 429s after Retry-After, a bounded number of times; the retry is
		// abandoned when the request's context ends.
		slackapi.OptionRetryConfig(slackapi.RetryConfig{
			MaxRetries:         3,
			RetryAfterDuration: 5 * time.Second,
			RetryAfterJitter:   250 * time.Millisecond,
			BackoffInitial:     200 * time.Millisecond,
			BackoffMax:         10 * time.Second,
		}),
	)
	return c, nil
}

// Name returns "slack".
func (c *Channel) Name() string { return Name }

// Post renders q in Block Kit and sends it to chat: a conversation id
// (C0123ABC, G0123ABC) or a user id (U0123ABC) for the person's DM with
// the bot. The returned reference holds the conversation id (the user id
// for a DM) and the message ts ("D…/ts" for a DM). When the copy shows the
// context shortened, the whole context follows in its thread
// (wholecontext.go).
func (c *Channel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	m := questionMessage(c.card(q))
	ch, ts, err := c.paced.PostMessageContext(ctx, chat,
		slackapi.MsgOptionText(m.text, false),
		slackapi.MsgOptionBlocks(m.blocks...),
		slackapi.MsgOptionDisableLinkUnfurl(),
		slackapi.MsgOptionDisableMediaUnfurl(),
		slackapi.MsgOptionMetadata(copyMetadata(q, chat)),
	)
	if err != nil {
		return broker.MessageRef{}, classify(fmt.Errorf("slack: post question %s to %s: %w", q.ID, chat, err))
	}
	if ch == "" {
		ch = chat
	}
	c.log.Debug("question posted", "question_id", q.ID, "chat", ch, "ts", ts)
	if !contextShown(q, m.blocks) {
		c.threadWholeContext(ctx, q, chat, ch, ts) // logs its failure, never returns it
	}
	ref := broker.MessageRef{Channel: Name, Chat: ch, MessageID: messageID(ch, ts), PostedAt: c.now()}
	if isUserID(chat) {
		ref.Chat = chat
	}
	return ref, nil
}

// Update edits the posted copy m: the outcome without buttons once q is
// resolved, or the dialog's progress while it is pending.
func (c *Channel) Update(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	card := c.card(q)
	msg := questionMessage(card)
	if !card.Pending {
		msg = outcomeMessage(card)
	}
	ch, ts := locate(m)
	_, _, _, err := c.paced.UpdateMessageContext(ctx, ch, ts,
		slackapi.MsgOptionText(msg.text, false),
		slackapi.MsgOptionBlocks(msg.blocks...),
	)
	if err != nil {
		return classify(fmt.Errorf("slack: update question %s in %s: %w", q.ID, m.Chat, err))
	}
	return nil
}

// Remind replies in the thread of the posted copy m with the reminder.
func (c *Channel) Remind(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	text := escapeMrkdwn(c.card(q).Reminder)
	ch, ts := locate(m)
	_, _, err := c.paced.PostMessageContext(ctx, ch,
		slackapi.MsgOptionText(text, false),
		slackapi.MsgOptionTS(ts),
	)
	if err != nil {
		return classify(fmt.Errorf("slack: remind question %s in %s: %w", q.ID, m.Chat, err))
	}
	return nil
}

// tell shows text to one person in a channel as an ephemeral message, in
// the thread when threadTS is set. When the bot cannot post there (not a
// member, a DM between people) and the action came with a response_url,
// the reply goes through it instead.
func (c *Channel) tell(ctx context.Context, where replyTo, text string) {
	text = escapeLimit(text, maxFallbackText)
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, false)}
	if where.threadTS != "" {
		opts = append(opts, slackapi.MsgOptionTS(where.threadTS))
	}
	_, err := c.api.PostEphemeralContext(ctx, where.chat, where.user, opts...)
	if err == nil {
		return
	}
	if c.responseURLAllowed(where.responseURL) {
		msg := &slackapi.WebhookMessage{Text: text, ResponseType: "ephemeral"}
		if err2 := slackapi.PostWebhookCustomHTTPContext(ctx, where.responseURL, c.httpc, msg); err2 == nil {
			return
		}
	}
	c.log.Warn("ephemeral reply failed", "chat", where.chat, "user", where.user, "err", err)
}

// replyTo says where a person's reply is shown.
type replyTo struct {
	chat, user, threadTS string
	// responseURL is the action's response_url, used when the bot cannot
	// post an ephemeral message in chat.
	responseURL string
}

// responseURLAllowed accepts response URLs on Slack's hooks host or on the
// configured API host (a proxy or a test server), and nothing else.
func (c *Channel) responseURLAllowed(raw string) bool {
	if raw == "" {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.Scheme == "https" && u.Host == "hooks.slack.com" {
		return true
	}
	api, err := url.Parse(c.cfg.APIURL)
	return err == nil && u.Scheme == api.Scheme && u.Host == api.Host
}

// localeOf is the language of this channel's copy of q: the person's for
// a direct message, else the route's, else the channel's (broker.Languages).
func (c *Channel) localeOf(q *broker.Question) string {
	if l := c.langs.Locale(q, Name); l != "" {
		return l
	}
	return c.locale
}
