package builtin

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/web"
)

// Wiring is what the server needs from the channels besides registering
// them with the broker.
type Wiring struct {
	// sessions keeps the web inbox's sign-in sessions in the store, so
	// every instance accepts them.
	sessions broker.Sessions
	// presence records the web inbox's open pages in the store, so every
	// instance knows whether anyone watches it.
	presence web.Presence
	// push keeps the web inbox's VAPID key pair and push subscriptions,
	// when the store is a broker.PushStore (both stores are).
	push broker.PushStore
	// TextChannels may be used through POST /v1/commands.
	TextChannels []string
	// Handlers are mounted on the HTTP server (webhooks, the web inbox).
	Handlers map[string]http.Handler
	// Webhooks are the patterns of handlers that are platform webhooks
	// (all but the web inbox): they check their own signatures or secrets.
	Webhooks []string
	// Runners are inbound loops (long polling, gateways, sockets).
	Runners []Runner
	// Jobs run beside the server until it stops.
	Jobs []func(ctx context.Context)
	// InboxURL, when set, tells people where the web inbox is.
	InboxURL func(addr string) string
}

// Runner is a channel's inbound loop and the channel's name.
type Runner struct {
	broker.Runner
	Name string
}

// mount adds a channel's HTTP route, refusing a path that is taken (two
// webhooks, or a webhook on the web inbox's "/").
func (w *Wiring) mount(name string, r channels.Route) error {
	if _, taken := w.Handlers[r.Pattern]; taken {
		return fmt.Errorf("channels.%s: path %s is already served by another part of the bridge; give it a path of its own", name, r.Pattern)
	}
	w.Handlers[r.Pattern] = r.Handler
	if r.Webhook {
		w.Webhooks = append(w.Webhooks, r.Pattern)
	}
	return nil
}

// Stores are the roles of the store the channels use: the web inbox's
// sign-in sessions and mark of open pages, and the webhooks' replay
// guard, all shared by every instance.
type Stores interface {
	broker.Sessions
	broker.ReplayGuard
	web.Presence
}

// Build creates every configured channel, registers it with the broker,
// mounts the HTTP routes it offers and collects its inbound loop. loop
// says the bridge listens on loopback only; st keeps the web inbox's
// sign-in sessions and the webhook requests already taken.
func (c Config) Build(b *broker.Broker, st Stores, loop bool, loc *time.Location, log *slog.Logger) (*Wiring, error) {
	w := &Wiring{Handlers: map[string]http.Handler{}, sessions: st, presence: st}
	if ps, ok := st.(broker.PushStore); ok {
		w.push = ps
	}
	opts := channels.Options{Logger: log, Location: loc, Replay: st, Languages: b.Languages()}
	for _, s := range c.sections(loop) {
		ch, err := s.build(b, w, opts)
		if err != nil {
			return nil, fmt.Errorf("channels.%s: %w", s.name, err)
		}
		b.Register(ch)
		if s.text {
			w.TextChannels = append(w.TextChannels, s.name)
		}
		if r, ok := ch.(channels.Router); ok {
			for _, route := range r.Routes() {
				if err := w.mount(s.name, route); err != nil {
					return nil, err
				}
			}
		}
		if r, ok := ch.(broker.Runner); ok {
			w.Runners = append(w.Runners, Runner{r, s.name})
		}
	}
	return w, nil
}
