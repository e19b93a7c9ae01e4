package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/logthrottle"
)

// Name is the channel's name in routes ("web").
const Name = "web"

// heartbeatEvery is how often an idle event stream sends a comment line, so
// proxies keep it open and the page notices a dead connection.
const heartbeatEvery = 15 * time.Second

// endedTTL is how long the inbox remembers that a question ended, so
// that a post or an edit racing with its end (the broker makes them from
// several goroutines) is not broadcast after it.
const endedTTL = 10 * time.Second

// Lister reads the pages of the inbox from the store's indexes
// (broker.Inbox). broker.Store satisfies it.
type Lister interface {
	InboxPage(ctx context.Context, q broker.InboxQuery) (broker.InboxPage, error)
}

// Options are what every channel's constructor takes (channels.Options:
// logger, clock, location) and the facts about the running server the
// inbox alone needs.
type Options struct {
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Location places the times shown on the page; it defaults to UTC,
	// like the broker's. Pass the broker's Location().
	Location *time.Location

	// Lister reads the open and recent questions (a broker.Store will
	// do). Required.
	Lister Lister
	// Loopback is true when the server listens only on a loopback
	// address; only then may the inbox run without a token.
	Loopback bool
	// Sessions keeps sign-in sessions; required with a token. Pass the
	// bridge's store, so that every instance accepts a session.
	Sessions broker.Sessions
	// Copies, when set, lists each question's copies on the other
	// targets, which the page shows with their states (pass the broker).
	Copies CopyReader
	// People is the directory of people: who a person's own token
	// (web_token_env), token_person and single sign-on sign in. Nil
	// knows nobody.
	People *broker.People
	// Conversations, when set, reads what was said on conversation
	// questions once they ended, which their cards show with a box to
	// write to the agent's session (conversation.go; pass the broker).
	Conversations ConversationReader
	// Rules, when set, keeps the bridge's approval rules, which the
	// Rules page lists and revokes (rules.go; pass the broker). Without
	// it the inbox has no Rules page.
	Rules RuleKeeper
	// Presence, when set, records open pages in the store, so that every
	// instance knows whether anyone watches the inbox (presence.go; pass
	// the bridge's store). Without it only this instance's pages count.
	Presence Presence
	// Push, when set, keeps the VAPID key pair and the push
	// subscriptions (pass the store, when it is a broker.PushStore):
	// people may then turn on notifications, and each new question is
	// pushed to the devices of those who may answer it (push*.go).
	Push broker.PushStore
	// Languages chooses the language of each question's card by its
	// route and the channel (nil: the channel's locale, else the
	// reader's; lang.go).
	Languages *broker.Languages
}

// Channel is the web inbox. It implements broker.Channel, broker.Reminder
// and broker.Runner (Run discovers the single sign-on provider and closes
// the event streams at shutdown), and serves the page with Handler.
type Channel struct {
	cfg      Config
	in       broker.InboundHandler
	lister   Lister
	copies   CopyReader
	talk     ConversationReader
	rules    RuleKeeper
	presence *presence // nil without Options.Presence
	log      *slog.Logger
	loc      *time.Location
	auth     *auth
	sso      *sso // nil without single sign-on
	hub      *hub
	now      func() time.Time
	beat     time.Duration
	userName string
	static   fs.FS
	// rulesTmpl is the Rules page (rules.go).
	rulesTmpl *template.Template
	// refusals logs wrong tokens at most once a second.
	refusals *logthrottle.Logger
	// push sends notifications of new questions; nil without
	// Options.Push.
	push *pusher
	// langs and locale choose the language of the page and its cards
	// (lang.go); locale is channels.web.locale as i18n.Parse returns it.
	langs  *broker.Languages
	locale string

	// mu guards ended and endedOrder: the questions whose end this
	// instance published within endedTTL, by id and in the order they
	// ended, so that expiring them looks only at the ones that expire.
	// Nothing else of a question is kept: the page's state is read from
	// the store, which records the inbox's copy before Post.
	mu         sync.Mutex
	ended      map[string]time.Time
	endedOrder []endedQuestion
}

// endedQuestion is one entry of Channel.endedOrder.
type endedQuestion struct {
	id string
	at time.Time
}

var (
	_ broker.Channel   = (*Channel)(nil)
	_ broker.Updater   = (*Channel)(nil)
	_ channels.Router  = (*Channel)(nil)
	_ broker.Reminder  = (*Channel)(nil)
	_ broker.Runner    = (*Channel)(nil)
	_ broker.InProcess = (*Channel)(nil)
	_ broker.Watchers  = (*Channel)(nil)
)

// New builds the web inbox. h receives every command typed or clicked on
// the page; opts.Lister reads the open and recent questions. It fails
// when a token or the people's sign-in is misconfigured
// (ValidatePeople), or when the server listens beyond loopback and there
// is no way to sign in. It makes no network call: Run discovers the
// single sign-on provider.
func New(cfg Config, h broker.InboundHandler, opts Options) (*Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if h == nil || opts.Lister == nil {
		return nil, errors.New("web: New needs an inbound handler and a lister (Options.Lister)")
	}
	cfg = cfg.withDefaults()
	locale, err := i18n.Parse(cfg.Locale)
	if err != nil {
		return nil, fmt.Errorf("%s: locale: %w", Name, err)
	}
	token, err := cfg.token()
	if err != nil {
		return nil, err
	}
	if err := ValidatePeople(cfg, listOf(opts.People), !opts.Loopback); err != nil {
		return nil, err
	}
	var ssoSecret string
	if cfg.OIDC.on() {
		if ssoSecret, err = cfg.OIDC.secret(); err != nil {
			return nil, err
		}
	}
	static, err := staticFiles()
	if err != nil {
		return nil, err
	}
	rulesTmpl, err := parseRulesPage()
	if err != nil {
		return nil, err
	}
	user := cfg.Name
	if user == "" {
		user = "web"
	}
	a := newAuth(cfg, opts.People, token, ssoSecret, user, opts.Sessions)
	if a.open() && cfg.Name == "" {
		user = "local"
		a.anon = identity{User: user, Name: user}
	}
	if a.open() && !opts.Loopback {
		return nil, errNeedToken
	}
	if !a.open() && opts.Sessions == nil {
		return nil, errors.New("web: with a token the inbox needs a session store (Options.Sessions)")
	}
	common := channels.Options{Logger: opts.Logger, Now: opts.Now, Location: opts.Location}.For(Name)
	c := &Channel{
		cfg: cfg, in: h, lister: opts.Lister, copies: opts.Copies, rules: opts.Rules, talk: opts.Conversations,
		log: common.Logger, loc: common.Location,
		auth: a, hub: newHub(), static: static, rulesTmpl: rulesTmpl,
		now: common.Now, beat: heartbeatEvery, userName: user,
		ended:    map[string]time.Time{},
		refusals: logthrottle.New(common.Logger, time.Second),
		langs:    opts.Languages, locale: locale,
	}
	if opts.Presence != nil {
		c.presence = &presence{store: opts.Presence}
	}
	if opts.Push != nil {
		c.push = newPusher(opts.Push, opts.People, user, cfg.PushContact, common.Logger, common.Now, common.Location)
		c.push.locale = locale
	}
	if cfg.OIDC.on() {
		c.sso = newSSO(*cfg.OIDC, ssoSecret, opts.People, func() time.Time { return c.now() }, common.Logger)
	}
	return c, nil
}

// Name returns "web".
func (c *Channel) Name() string { return Name }

// Post shows q on every connected page. The web inbox has no chats: chat
// must be empty (a route target written just "web").
func (c *Channel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	if chat != "" {
		return broker.MessageRef{}, broker.Permanent(fmt.Errorf("web: the web inbox has no chats, got %q: write the route target as just \"web\"", chat))
	}
	c.publish(q)
	if c.push != nil && !q.Status.Terminal() {
		c.push.enqueue(q)
	}
	c.log.Debug("question posted", "question_id", q.ID)
	return broker.MessageRef{Channel: Name, MessageID: q.ID, PostedAt: c.now()}, nil
}

// InProcess reports that posts to the inbox (chat empty) are made in the
// bridge's process: the broker posts, edits and reminds here directly,
// without the store's outbox.
func (c *Channel) InProcess(chat string) bool { return chat == "" }

// Update shows the new state of q (its outcome, or its progress in a
// dialog) on every connected page.
func (c *Channel) Update(_ context.Context, q *broker.Question, _ broker.MessageRef) error {
	c.publish(q)
	return nil
}

// Remind marks q on every connected page as reminded, with the time left:
// the sweeper counts the reminder as sent in the store (RemindersSent)
// before the broker calls Remind, so q says so itself.
func (c *Channel) Remind(_ context.Context, q *broker.Question, _ broker.MessageRef) error {
	c.publish(q)
	return nil
}

// Run discovers the single sign-on provider, if one is configured (a
// provider that does not answer is tried again on a later sign-in), and
// keeps the inbox until ctx ends, renewing the store's mark of open pages
// (presence.go); then it ends every open event stream so that the HTTP
// server can shut down, and returns once the pushes still queued are
// sent (at most pushDrain later: push_send.go).
func (c *Channel) Run(ctx context.Context) error {
	if c.sso != nil {
		_, _ = c.sso.provider(ctx)
	}
	pushed := make(chan struct{})
	if c.push != nil {
		go func() {
			defer close(pushed)
			c.push.run(ctx)
		}()
	} else {
		close(pushed)
	}
	c.keepPresence(ctx)
	<-ctx.Done()
	c.Close()
	<-pushed
	return nil
}

// Close ends every open event stream and refuses new ones.
func (c *Channel) Close() { c.hub.close() }

// URL returns the address people open for a server listening on
// listenAddr: "http://127.0.0.1:8377/" for "127.0.0.1:8377", and a
// loopback address in place of an unspecified host such as ":8377".
func (c *Channel) URL(listenAddr string) string {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return "http://" + listenAddr + "/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// publish broadcasts q's view when a page is connected. A page that
// connects later reads its state from the store. A pending view of a
// question whose end was published lately is dropped: a question never
// reopens. It costs the same however many questions went through.
func (c *Channel) publish(q *broker.Question) {
	c.mu.Lock()
	now := c.now()
	c.expireLocked(now)
	if q.Status.Terminal() {
		c.ended[q.ID] = now
		c.endedOrder = append(c.endedOrder, endedQuestion{id: q.ID, at: now})
	} else if _, ok := c.ended[q.ID]; ok {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	if !c.hub.listening() {
		return
	}
	v := render(q, now, c.loc)
	c.addConversation(context.Background(), q, &v)
	// Each page reads its times in its own zone (zone.go) and the card in
	// its reader's language (lang.go); the rest of the view is the same
	// for all.
	c.hub.broadcast(func(rd reader) string { return c.cardLocale(q, rd) }, func(loc *time.Location, locale string) []byte {
		w := v
		if loc.String() != c.loc.String() || locale != "" {
			w = renderIn(q, now, loc, locale)
			w.Say, w.Conversation, w.Rank = v.Say, v.Conversation, v.Rank
		}
		ev, err := json.Marshal(w)
		if err != nil {
			c.log.Error("render question", "question_id", q.ID, "err", err)
			return nil
		}
		return ev
	})
}

// expireLocked forgets the ends published more than endedTTL before now.
// An id that ended again later stays, under its later time.
func (c *Channel) expireLocked(now time.Time) {
	n := 0
	for _, e := range c.endedOrder {
		if now.Sub(e.at) <= endedTTL {
			break
		}
		if c.ended[e.id].Equal(e.at) {
			delete(c.ended, e.id)
		}
		n++
	}
	if n == 0 {
		return
	}
	c.endedOrder = c.endedOrder[n:]
	if len(c.endedOrder) == 0 {
		c.endedOrder = nil // let the backing array go
	}
}

// endedLen returns how many ended questions are remembered.
func (c *Channel) endedLen() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ended)
}
