package web

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// Web Push, the sending side. When the inbox posts a new question it
// hands it to the pusher, which notifies in the background every device
// of the people who may answer: the people the question's responders name
// (broker.ResponderPeople), or, for a question anyone may answer, every
// person and the page's own user. The ask never waits for it: the queue is
// bounded, and a question that finds it full is logged and not pushed
// (the inbox still shows it). A notification's own words (its title when
// the agent gave none, a dialog's count of questions) are in the language
// of the person it is for: their locale (people[].locale), else the
// inbox's (channels.web.locale), else English; the agent's words stay as
// written. Each push is signed with the store's VAPID
// key pair (RFC 8292) and encrypted for the device (RFC 8291) by
// webpush-go. An endpoint the push service answers 404 or 410 for is gone
// for good, and its subscription is dropped; 429, 5xx and network errors
// are tried again, pushRetries times in all; anything else is logged.

// DefaultPushContact is the VAPID "sub" claim when web.push_contact is not
// set: a push service may write there about the pushes it gets.
const DefaultPushContact = "https://github.com/askbridge/askbridge"

const (
	// pushQueue is how many new questions may wait to be pushed.
	pushQueue = 256
	// pushWorkers send pushes side by side.
	pushWorkers = 2
	// pushRetries is how many times one push is attempted.
	pushRetries = 3
	// pushTimeout bounds one attempt.
	pushTimeout = 15 * time.Second
	// maxPushTTL bounds how long a push service keeps an undelivered
	// push: the question's time left, at most a day.
	maxPushTTL = 24 * time.Hour
	// pushActions is how many option buttons a notification carries.
	pushActions = 2
	// pushDrain is how long a stopping bridge goes on sending the pushes
	// already queued.
	pushDrain = 5 * time.Second
)

// pusher sends the pushes of new questions.
type pusher struct {
	store   broker.PushStore
	people  *broker.People
	anon    string // the page's own user, notified of questions anyone may answer
	contact string
	// locale is the inbox's (channels.web.locale), for whoever has none
	// of their own.
	locale string
	client *http.Client
	log    *slog.Logger
	now    func() time.Time
	loc    *time.Location
	queue  chan *broker.Question
	// backoff is the wait before attempt n+1 (n from 1).
	backoff func(n int) time.Duration
	// drainFor is how long run sends what is queued once its context
	// has ended (pushDrain).
	drainFor time.Duration

	mu   sync.Mutex
	keys *broker.VAPIDKeys // read once from the store
	// none holds, per set of recipients, when the store last said none
	// of them has a device: Watched and notify ask it for every question,
	// and most bridges have no device at all, so the answer is trusted
	// for memoLife (presence.go).
	none map[string]time.Time
}

// maxNone bounds the sets of recipients none remembers.
const maxNone = 256

// subscriptions returns the devices of people, reading the store unless
// it said none of them has one less than memoLife ago.
func (p *pusher) subscriptions(ctx context.Context, people []string) ([]broker.PushSubscription, error) {
	key, now := strings.Join(people, "\x00"), p.now()
	p.mu.Lock()
	at, ok := p.none[key]
	p.mu.Unlock()
	if ok && !now.Before(at) && now.Sub(at) < memoLife {
		return nil, nil
	}
	subs, err := p.store.PushSubscriptions(ctx, people)
	if err != nil || len(subs) > 0 {
		return subs, err
	}
	p.mu.Lock()
	if p.none == nil || len(p.none) >= maxNone {
		p.none = map[string]time.Time{}
	}
	p.none[key] = now
	p.mu.Unlock()
	return nil, nil
}

// anyDevice reports whether one of people has a device.
func (p *pusher) anyDevice(ctx context.Context, people []string) (bool, error) {
	subs, err := p.subscriptions(ctx, people)
	return len(subs) > 0, err
}

// changed forgets what the store said, after a device was added or
// removed through this instance.
func (p *pusher) changed() {
	p.mu.Lock()
	p.none = nil
	p.mu.Unlock()
}

func newPusher(store broker.PushStore, people *broker.People, anon, contact string, log *slog.Logger, now func() time.Time, loc *time.Location) *pusher {
	if contact == "" {
		contact = DefaultPushContact
	}
	return &pusher{
		store: store, people: people, anon: anon, contact: contact,
		client: &http.Client{Timeout: pushTimeout}, log: log, now: now, loc: loc,
		queue:    make(chan *broker.Question, pushQueue),
		drainFor: pushDrain,
		backoff:  func(n int) time.Duration { return time.Duration(n*n) * 2 * time.Second },
	}
}

// vapidKeys returns the bridge's key pair: the store's, made and stored
// by the first instance that asks.
func (p *pusher) vapidKeys(ctx context.Context) (broker.VAPIDKeys, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys != nil {
		return *p.keys, nil
	}
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return broker.VAPIDKeys{}, fmt.Errorf("web: make VAPID keys: %w", err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	stored, err := p.store.VAPIDKeys(ctx, broker.VAPIDKeys{Public: enc(k.PublicKey().Bytes()), Private: enc(k.Bytes())})
	if err != nil {
		return broker.VAPIDKeys{}, fmt.Errorf("web: VAPID keys: %w", err)
	}
	p.keys = &stored
	return stored, nil
}

// enqueue hands q to the workers without waiting.
func (p *pusher) enqueue(q *broker.Question) {
	select {
	case p.queue <- q:
	default:
		p.log.Warn("push queue full: question not pushed", "question_id", q.ID)
	}
}

// run sends queued pushes until ctx ends, then sends what is still
// queued for at most drainFor (the bridge stopping does not drop the
// notifications of questions it has just posted) and returns; what it
// could not send by then is logged, with how many questions it was.
func (p *pusher) run(ctx context.Context) {
	if _, err := p.vapidKeys(ctx); err != nil && ctx.Err() == nil {
		p.log.Error("web push keys", "err", err)
	}
	// work outlives ctx by drainFor, so that pushes in flight and queued
	// finish; it ends then whatever is left.
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	var deadline *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		deadline = time.AfterFunc(p.drainFor, cancel)
		mu.Unlock()
	})
	defer func() {
		stop()
		mu.Lock()
		if deadline != nil {
			deadline.Stop()
		}
		mu.Unlock()
	}()
	var wg sync.WaitGroup
	var unsent atomic.Int64
	take := func(q *broker.Question) {
		if ctx.Err() != nil && work.Err() != nil {
			unsent.Add(1)
			return
		}
		p.notify(work, q)
		if ctx.Err() != nil && work.Err() != nil {
			unsent.Add(1)
		}
	}
	for range pushWorkers {
		wg.Go(func() {
			for {
				// What is queued goes first, even once ctx has ended.
				select {
				case q := <-p.queue:
					take(q)
					continue
				default:
				}
				select {
				case <-ctx.Done():
					return
				case q := <-p.queue:
					take(q)
				}
			}
		})
	}
	wg.Wait()
	if n := unsent.Load(); n > 0 {
		p.log.Warn("web push: the bridge stopped before these questions' notifications were sent", "questions", n, "drain", p.drainFor)
	}
}

// recipients returns who is notified of q.
func (p *pusher) recipients(q *broker.Question) []string {
	if len(q.Responders) > 0 {
		return broker.ResponderPeople(q.Responders, p.people)
	}
	var out []string
	for _, person := range p.people.All() {
		out = append(out, person.ID)
	}
	return append(out, p.anon)
}

// notify pushes q to every device of its recipients.
func (p *pusher) notify(ctx context.Context, q *broker.Question) {
	subs, err := p.subscriptions(ctx, p.recipients(q))
	if err != nil {
		p.log.Error("read push subscriptions", "question_id", q.ID, "err", err)
		return
	}
	if len(subs) == 0 {
		return
	}
	keys, err := p.vapidKeys(ctx)
	if err != nil {
		p.log.Error("web push keys", "question_id", q.ID, "err", err)
		return
	}
	now := p.now()
	ttl := maxPushTTL
	if !q.ExpiresAt.IsZero() {
		ttl = min(max(q.ExpiresAt.Sub(now), time.Minute), maxPushTTL)
	}
	// One message per language, made when a device first needs it.
	msgs := map[string][]byte{}
	for _, s := range subs {
		locale := p.localeOf(s.Person)
		msg, ok := msgs[locale]
		if !ok {
			if msg, err = json.Marshal(pushMessageOf(q, now, p.loc, locale)); err != nil {
				p.log.Error("encode push", "question_id", q.ID, "err", err)
				return
			}
			msgs[locale] = msg
		}
		p.send(ctx, q.ID, s, msg, keys, ttl)
	}
}

// localeOf is the language of person's notifications: their own, else
// the inbox's; "" is English.
func (p *pusher) localeOf(person string) string {
	if who := p.people.Person(person); who != nil && who.Locale != "" {
		return who.Locale
	}
	return p.locale
}

// send pushes msg to one device, trying again after a passing failure.
func (p *pusher) send(ctx context.Context, id string, s broker.PushSubscription, msg []byte, keys broker.VAPIDKeys, ttl time.Duration) {
	log := p.log.With("question_id", id, "person", s.Person, "push_service", serviceOf(s.Endpoint))
	for n := 1; ; n++ {
		status, err := p.attempt(ctx, s, msg, keys, ttl)
		switch {
		case err == nil && status < 300:
			return
		case status == http.StatusNotFound || status == http.StatusGone:
			if _, err := p.store.DeletePushSubscription(ctx, s.Person, s.Endpoint); err != nil {
				log.Error("drop push subscription", "err", err)
				return
			}
			log.Info("push subscription dropped: the push service no longer knows it", "status", status)
			return
		case err == nil && status != http.StatusTooManyRequests && status < 500:
			log.Warn("push refused", "status", status)
			return
		case n >= pushRetries:
			log.Warn("push failed", "status", status, "err", err, "attempts", n)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(p.backoff(n)):
		}
	}
}

// attempt makes one push and returns the push service's status.
func (p *pusher) attempt(ctx context.Context, s broker.PushSubscription, msg []byte, keys broker.VAPIDKeys, ttl time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	resp, err := webpush.SendNotificationWithContext(ctx, msg, &webpush.Subscription{
		Endpoint: s.Endpoint,
		Keys:     webpush.Keys{Auth: s.Auth, P256dh: s.P256dh},
	}, &webpush.Options{
		HTTPClient: p.client,
		// webpush-go writes "mailto:" before any contact that is not
		// an https URL.
		Subscriber:      strings.TrimPrefix(p.contact, "mailto:"),
		VAPIDPublicKey:  keys.Public,
		VAPIDPrivateKey: keys.Private,
		TTL:             int(ttl / time.Second),
		Urgency:         webpush.UrgencyHigh,
	})
	if err != nil {
		return 0, redactEndpoint(err, s.Endpoint)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// serviceOf names a push service by its endpoint's host: the path is the
// device's capability and stays out of logs.
func serviceOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "?"
	}
	return u.Host
}

// redactEndpoint keeps a device's endpoint out of an error's text.
func redactEndpoint(err error, endpoint string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("push to %s: %w", serviceOf(endpoint), err)
}

// pushMessage is what a notification shows, as the service worker reads
// it (assets/sw.js).
type pushMessage struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body,omitempty"`
	// URL opens the question's card in the inbox.
	URL string `json:"url"`
	// Actions are up to two of the options of a one-prompt question;
	// each opens the card.
	Actions []pushAction `json:"actions,omitempty"`
}

// pushAction is one option offered on a notification.
type pushAction struct {
	Action  string `json:"action"`
	Title   string `json:"title"`
	Command string `json:"command"`
	URL     string `json:"url"`
}

// cardURL is the inbox's address of question id's card.
func cardURL(id string) string { return "/#q-" + id }

// pushMessageOf builds the notification of q from its card, in locale
// ("" is English).
func pushMessageOf(q *broker.Question, now time.Time, loc *time.Location, locale string) pushMessage {
	c := broker.BuildCard(q, broker.Viewer{Now: now, Loc: loc, Locale: locale})
	m := pushMessage{ID: q.ID, Title: c.Title, URL: cardURL(q.ID)}
	if len(c.Prompts) > 0 {
		first := c.Prompts[0]
		if m.Title == "" {
			m.Title = first.Header
		}
		m.Body = first.Question
		if len(c.Prompts) == 1 && !first.MultiSelect && first.Open {
			for _, o := range first.Options[:min(len(first.Options), pushActions)] {
				m.Actions = append(m.Actions, pushAction{
					Action: fmt.Sprintf("option-%d", o.Number), Title: cut(o.Label, 40),
					Command: o.Command, URL: m.URL,
				})
			}
		}
	}
	if m.Title == "" {
		m.Title = i18n.For(locale).T("push.from", q.Agent)
	}
	m.Title, m.Body = cut(m.Title, 80), cut(m.Body, 200)
	return m
}

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
