package discord

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/logthrottle"
	"github.com/bwmarrin/discordgo"
)

// Name is the channel's name in routes and in Inbound.Channel.
const Name = "discord"

// Compile-time checks of the contracts the channel implements.
var (
	_ broker.Channel   = (*Channel)(nil)
	_ broker.Updater   = (*Channel)(nil)
	_ channels.Router  = (*Channel)(nil)
	_ broker.Reminder  = (*Channel)(nil)
	_ broker.Runner    = (*Channel)(nil)
	_ broker.Singleton = (*Channel)(nil)
)

// Channel posts questions to Discord channels and turns what people do
// there into broker.Inbound. Create it with New.
type Channel struct {
	// langs and locale choose the language of each copy (localeOf).
	langs     *broker.Languages
	locale    string
	cfg       Config
	h         broker.InboundHandler
	log       *slog.Logger
	loc       *time.Location
	session   *discordgo.Session
	publicKey ed25519.PublicKey

	// now is the clock (tests replace it); maxSignatureAge bounds the age
	// of a signed HTTP interaction.
	now             func() time.Time
	maxSignatureAge time.Duration
	// maxRetries bounds how often one REST call is retried after 429.
	maxRetries int
	// ackAfter is how long an interaction waits for the broker before it
	// is acknowledged with a deferred response.
	ackAfter time.Duration

	// late tracks follow-ups of HTTP interactions still under way.
	late sync.WaitGroup
	// refusals logs refused HTTP interactions at most once a second.
	refusals *logthrottle.Logger

	mu     sync.Mutex
	runCtx context.Context // the context of Run, for gateway handlers
	botID  string
	appID  string
	dms    map[string]string // user id → DM channel id
}

// New returns a Discord channel for cfg that hands people's actions to h.
// It reads the bot token from the environment variable cfg.TokenEnv and
// makes no request yet: the gateway is opened by Run.
func New(cfg Config, h broker.InboundHandler, opts channels.Options) (*Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err // names the discord.* key
	}
	if h == nil {
		return nil, errors.New("discord: an inbound handler is required")
	}
	cfg = cfg.withDefaults()
	token := strings.TrimSpace(os.Getenv(cfg.TokenEnv))
	if token == "" {
		return nil, fmt.Errorf("discord: environment variable %s (discord.token_env) is empty: set it to the bot token", cfg.TokenEnv)
	}
	token = strings.TrimPrefix(token, "Bot ")
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("discord: session: %w", err)
	}
	base, _ := url.Parse(cfg.APIURL) // checked by Validate
	s.Client = &http.Client{Timeout: 20 * time.Second, Transport: rewriteTransport(base)}
	s.ShouldRetryOnRateLimit = false // retried by call, within the caller's context
	s.LogLevel = discordgo.LogError
	s.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages
	if cfg.MessageContent {
		s.Identify.Intents |= discordgo.IntentMessageContent
	}
	opts = opts.For(Name)
	locale, err := i18n.Parse(cfg.Locale)
	if err != nil {
		return nil, fmt.Errorf("%s: locale: %w", Name, err)
	}
	log := opts.Logger
	c := &Channel{
		langs: opts.Languages, locale: locale,
		cfg: cfg, h: h, log: log, loc: opts.Location, session: s,
		now: opts.Now, maxSignatureAge: 5 * time.Minute, maxRetries: 5, ackAfter: defaultAckAfter,
		appID: cfg.ApplicationID, dms: map[string]string{},
		refusals: logthrottle.New(log, time.Second),
	}
	if cfg.PublicKey != "" {
		c.publicKey, _ = parsePublicKey(cfg.PublicKey) // checked by Validate
	}
	s.AddHandler(c.onInteraction)
	s.AddHandler(c.onMessage)
	return c, nil
}

// Name returns "discord".
func (c *Channel) Name() string { return Name }

// Singleton reports true: Discord allows one gateway connection per bot
// (without sharding), so only the leader instance runs it.
func (c *Channel) Singleton() bool { return true }

// Post renders q and sends it to the Discord channel chat (a channel id),
// with the copy's nonce enforced (nonce.go), so a post sent again after a
// lost answer returns the copy already made. When the copy shows the
// context shortened, the whole context follows as a reply to it
// (wholecontext.go).
func (c *Channel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	if err := checkChat(chat); err != nil {
		return broker.MessageRef{}, broker.Permanent(fmt.Errorf("discord: post %s: %w", q.ID, err))
	}
	to, err := c.channelID(ctx, chat)
	if err != nil {
		return broker.MessageRef{}, classify(fmt.Errorf("discord: post %s to %s: %w", q.ID, chat, err))
	}
	m := render(q, c.view(q))
	var msg *discordgo.Message
	err = c.call(ctx, func(opts ...discordgo.RequestOption) (err error) {
		msg, err = c.sendOnce(to, copyNonce(q.ID, chat), &discordgo.MessageSend{
			Content: m.Content, Components: m.Components, AllowedMentions: noMentions(),
		}, opts...)
		return err
	})
	if err != nil {
		return broker.MessageRef{}, classify(fmt.Errorf("discord: post %s to %s: %w", q.ID, chat, err))
	}
	c.log.Debug("posted", "question_id", q.ID, "chat", chat, "message_id", msg.ID)
	if m.ContextCut {
		c.replyWholeContext(ctx, q, chat, to, msg.ID) // logs its failure, never returns it
	}
	return broker.MessageRef{Channel: Name, Chat: chat, MessageID: msg.ID, PostedAt: c.now()}, nil
}

// Update edits the posted copy m to show q as it stands: the outcome
// without components once resolved, the progress of a dialog while
// pending.
func (c *Channel) Update(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	to, err := c.channelID(ctx, m.Chat)
	if err != nil {
		return classify(fmt.Errorf("discord: update %s in %s: %w", q.ID, m.Chat, err))
	}
	r := render(q, c.view(q))
	err = c.call(ctx, func(opts ...discordgo.RequestOption) error {
		_, err := c.session.ChannelMessageEditComplex(&discordgo.MessageEdit{
			Channel: to, ID: m.MessageID,
			Content: &r.Content, Components: &r.Components, AllowedMentions: noMentions(),
		}, opts...)
		return err
	})
	if err != nil {
		return classify(fmt.Errorf("discord: update %s in %s: %w", q.ID, m.Chat, err))
	}
	return nil
}

// Remind replies to the question message with the card's reminder.
func (c *Channel) Remind(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	to, err := c.channelID(ctx, m.Chat)
	if err != nil {
		return classify(fmt.Errorf("discord: remind %s in %s: %w", q.ID, m.Chat, err))
	}
	card := broker.BuildCard(q, c.view(q))
	if card.Reminder == "" {
		return nil // a resolved question has nothing to remind of
	}
	no := false
	text := escape(card.Reminder)
	err = c.call(ctx, func(opts ...discordgo.RequestOption) error {
		_, err := c.session.ChannelMessageSendComplex(to, &discordgo.MessageSend{
			Content:         text,
			AllowedMentions: noMentions(),
			Reference:       &discordgo.MessageReference{MessageID: m.MessageID, ChannelID: to, FailIfNotExists: &no},
		}, opts...)
		return err
	})
	if err != nil {
		return classify(fmt.Errorf("discord: remind %s in %s: %w", q.ID, m.Chat, err))
	}
	return nil
}

// localeOf is the language of this channel's copy of q: the person's for
// a direct message, else the route's, else the channel's (broker.Languages).
func (c *Channel) localeOf(q *broker.Question) string {
	if l := c.langs.Locale(q, Name); l != "" {
		return l
	}
	return c.locale
}
