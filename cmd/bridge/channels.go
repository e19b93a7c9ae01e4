package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/channels/discord"
	"github.com/askbridge/askbridge/channels/slack"
	"github.com/askbridge/askbridge/channels/telegram"
	"github.com/askbridge/askbridge/channels/web"
	"github.com/askbridge/askbridge/internal/config"
)

// ChannelsConfig configures the channels. The text channel and the web
// inbox are on unless disabled; the chat platforms are on when their
// section is present.
type ChannelsConfig struct {
	CLI      cli.Config       `yaml:"cli"`
	Web      web.Config       `yaml:"web"`
	Telegram *telegram.Config `yaml:"telegram"`
	Slack    *slack.Config    `yaml:"slack"`
	Discord  *discord.Config  `yaml:"discord"`
}

// channelSection is one channel the configuration turns on: its section
// (checked by its own Validate, and for unset variables) and how to build
// it.
type channelSection struct {
	name string
	cfg  interface{ Validate() error }
	// text is true for channels used through POST /v1/commands.
	text  bool
	build func(b *broker.Broker, w *wiring, o channels.Options) (broker.Channel, error)
}

// sections lists the channels this configuration turns on, in the order
// they are built. It is the one place that knows each channel package.
func (c *Config) sections(loop bool) []channelSection {
	ch := c.Channels
	var out []channelSection
	if !ch.CLI.Disabled {
		out = append(out, channelSection{name: cli.Name, cfg: ch.CLI, text: true,
			build: func(b *broker.Broker, _ *wiring, o channels.Options) (broker.Channel, error) {
				return built(cli.New(ch.CLI, b, o))
			}})
	}
	if !ch.Web.Disabled {
		out = append(out, channelSection{name: web.Name, cfg: ch.Web,
			build: func(b *broker.Broker, w *wiring, o channels.Options) (broker.Channel, error) {
				// Both stores keep sign-in sessions, so every instance accepts them.
				inbox, err := web.New(ch.Web, b, web.Options{Logger: o.Logger, Now: o.Now, Location: o.Location,
					Lister: b, Loopback: loop, Sessions: w.sessions, Copies: b})
				if err == nil {
					w.inboxURL = inbox.URL
				}
				return built(inbox, err)
			}})
	}
	if t := ch.Telegram; t != nil {
		out = append(out, channelSection{name: telegram.Name, cfg: t,
			build: func(b *broker.Broker, _ *wiring, o channels.Options) (broker.Channel, error) {
				return built(telegram.New(*t, b, o))
			}})
	}
	if s := ch.Slack; s != nil {
		out = append(out, channelSection{name: slack.Name, cfg: s,
			build: func(b *broker.Broker, _ *wiring, o channels.Options) (broker.Channel, error) {
				return built(slack.New(*s, b, o))
			}})
	}
	if d := ch.Discord; d != nil {
		out = append(out, channelSection{name: discord.Name, cfg: d,
			build: func(b *broker.Broker, _ *wiring, o channels.Options) (broker.Channel, error) {
				return built(discord.New(*d, b, o))
			}})
	}
	return out
}

// built returns a constructor's channel as a broker.Channel, and no
// channel at all (not a typed nil) when it failed.
func built[C broker.Channel](ch C, err error) (broker.Channel, error) {
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// enabledChannels names the channels this configuration turns on.
func (c *Config) enabledChannels() map[string]bool {
	on := map[string]bool{}
	for _, s := range c.sections(false) {
		on[s.name] = true
	}
	return on
}

// defaultTargets is the default route when the file names none: the web
// inbox and the text channel, the two that need no chat id.
func (c *Config) defaultTargets() []string {
	var out []string
	for _, name := range []string{web.Name, cli.Name} {
		if c.enabledChannels()[name] {
			out = append(out, name)
		}
	}
	return out
}

// checkChannels validates each configured channel's own settings,
// reporting every problem. The web inbox's section is checked even when
// the inbox is disabled, as before.
func (c *Config) checkChannels() error {
	var p config.Problems
	checked := map[string]bool{}
	for _, s := range c.sections(false) {
		if err := s.cfg.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels."+s.name, s.cfg))
		checked[s.name] = true
	}
	if !checked[web.Name] {
		if err := c.Channels.Web.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels.web", c.Channels.Web))
	}
	return errors.Join(p...)
}

// wiring is what serve needs from the channels besides registering them.
type wiring struct {
	// sessions keeps the web inbox's sign-in sessions in the store, so
	// every instance accepts them.
	sessions broker.Sessions
	// textChannels may be used through POST /v1/commands.
	textChannels []string
	// handlers are mounted on the HTTP server (webhooks, the web inbox).
	handlers map[string]http.Handler
	// webhooks are the patterns of handlers that are platform webhooks
	// (all but the web inbox): they check their own signatures or secrets.
	webhooks []string
	// runners are inbound loops (long polling, gateways, sockets).
	runners []namedRunner
	// jobs run beside the server until it stops.
	jobs []func(ctx context.Context)
	// inboxURL, when set, tells people where the web inbox is.
	inboxURL func(addr string) string
}

// mount adds a channel's HTTP route, refusing a path that is taken (two
// webhooks, or a webhook on the web inbox's "/").
func (w *wiring) mount(name string, r channels.Route) error {
	if _, taken := w.handlers[r.Pattern]; taken {
		return fmt.Errorf("channels.%s: path %s is already served by another part of the bridge; give it a path of its own", name, r.Pattern)
	}
	w.handlers[r.Pattern] = r.Handler
	if r.Webhook {
		w.webhooks = append(w.webhooks, r.Pattern)
	}
	return nil
}

// buildChannels creates every configured channel, registers it with the
// broker, mounts the HTTP routes it offers and collects its inbound loop.
func buildChannels(cfg *Config, b *broker.Broker, sessions broker.Sessions, loop bool, loc *time.Location, log *slog.Logger) (*wiring, error) {
	w := &wiring{handlers: map[string]http.Handler{}, sessions: sessions}
	opts := channels.Options{Logger: log, Location: loc}
	for _, s := range cfg.sections(loop) {
		ch, err := s.build(b, w, opts)
		if err != nil {
			return nil, fmt.Errorf("channels.%s: %w", s.name, err)
		}
		b.Register(ch)
		if s.text {
			w.textChannels = append(w.textChannels, s.name)
		}
		if r, ok := ch.(channels.Router); ok {
			for _, route := range r.Routes() {
				if err := w.mount(s.name, route); err != nil {
					return nil, err
				}
			}
		}
		if r, ok := ch.(broker.Runner); ok {
			w.runners = append(w.runners, namedRunner{r, s.name})
		}
	}
	return w, nil
}
