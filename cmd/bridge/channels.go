package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
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
	CLI      CLIConfig        `yaml:"cli"`
	Web      WebConfig        `yaml:"web"`
	Telegram *telegram.Config `yaml:"telegram"`
	Slack    *slack.Config    `yaml:"slack"`
	Discord  *discord.Config  `yaml:"discord"`
}

// CLIConfig configures the text-only channel.
type CLIConfig struct {
	Disabled bool `yaml:"disabled"`
}

// WebConfig configures the built-in web inbox.
type WebConfig struct {
	Disabled   bool `yaml:"disabled"`
	web.Config `yaml:",inline"`
}

// enabledChannels names the channels this configuration turns on.
func (c *Config) enabledChannels() map[string]bool {
	on := map[string]bool{}
	if !c.Channels.CLI.Disabled {
		on[cli.Name] = true
	}
	if !c.Channels.Web.Disabled {
		on[web.Name] = true
	}
	if c.Channels.Telegram != nil {
		on[telegram.Name] = true
	}
	if c.Channels.Slack != nil {
		on[slack.ChannelName] = true
	}
	if c.Channels.Discord != nil {
		on[discord.Name] = true
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
// reporting every problem.
func (c *Config) checkChannels() error {
	var p config.Problems
	if err := c.Channels.Web.Validate(); err != nil {
		p.Add(fmt.Errorf("channels.%w", err))
	}
	p.Add(config.CheckEnv("channels.web", c.Channels.Web.Config))
	if t := c.Channels.Telegram; t != nil {
		if err := t.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels.telegram", t))
	}
	if s := c.Channels.Slack; s != nil {
		if err := s.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels.slack", s))
	}
	if d := c.Channels.Discord; d != nil {
		if err := d.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels.discord", d))
	}
	return errors.Join(p...)
}

// wiring is what serve needs from the channels besides registering them.
type wiring struct {
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

// mount adds an HTTP handler, refusing a path that is taken (two
// webhooks, or a webhook on the web inbox's "/").
func (w *wiring) mount(name, pattern string, h http.Handler) error {
	if _, taken := w.handlers[pattern]; taken {
		return fmt.Errorf("channels.%s: path %s is already served by another part of the bridge; give it a path of its own", name, pattern)
	}
	w.handlers[pattern] = h
	if name != web.Name {
		w.webhooks = append(w.webhooks, pattern)
	}
	return nil
}

// buildChannels creates every configured channel and registers it.
func buildChannels(cfg *Config, b *broker.Broker, loop bool, loc *time.Location, log *slog.Logger) (*wiring, error) {
	w := &wiring{handlers: map[string]http.Handler{}}
	if !cfg.Channels.CLI.Disabled {
		b.Register(cli.New(cli.Name))
		w.textChannels = append(w.textChannels, cli.Name)
	}
	if !cfg.Channels.Web.Disabled {
		// Both stores keep sign-in sessions, so every instance accepts them.
		sessions, _ := b.Store().(broker.Sessions)
		ch, err := web.New(cfg.Channels.Web.Config, b, b, web.Options{Loopback: loop, Logger: log.With("channel", web.Name), Location: loc, Sessions: sessions})
		if err != nil {
			return nil, fmt.Errorf("channels.web: %w", err)
		}
		b.Register(ch)
		if err := w.mount(web.Name, "/", ch.Handler()); err != nil {
			return nil, err
		}
		w.runners = append(w.runners, namedRunner{ch, web.Name})
		w.inboxURL = ch.URL
	}
	if tc := cfg.Channels.Telegram; tc != nil {
		tc.Location = loc
		ch, err := telegram.New(*tc, b, log.With("channel", telegram.Name))
		if err != nil {
			return nil, fmt.Errorf("channels.telegram: %w", err)
		}
		b.Register(ch)
		if tc.Mode == telegram.ModeWebhook {
			if err := w.mount(telegram.Name, tc.WebhookPath(), ch.Handler()); err != nil {
				return nil, err
			}
		}
		w.runners = append(w.runners, namedRunner{ch, telegram.Name})
	}
	if sc := cfg.Channels.Slack; sc != nil {
		sc.Location = loc
		ch, err := slack.New(*sc, b, log.With("channel", slack.ChannelName))
		if err != nil {
			return nil, fmt.Errorf("channels.slack: %w", err)
		}
		b.Register(ch)
		if sc.Mode == slack.ModeHTTP {
			if err := w.mount(slack.ChannelName, "/slack/", ch.Handler()); err != nil {
				return nil, err
			}
		}
		w.runners = append(w.runners, namedRunner{ch, slack.ChannelName})
	}
	if dc := cfg.Channels.Discord; dc != nil {
		dc.Location = loc
		ch, err := discord.New(*dc, b, log.With("channel", discord.Name))
		if err != nil {
			return nil, fmt.Errorf("channels.discord: %w", err)
		}
		b.Register(ch)
		if dc.Mode == discord.ModeHTTP {
			if err := w.mount(discord.Name, "/discord/interactions", ch.Handler()); err != nil {
				return nil, err
			}
		}
		w.runners = append(w.runners, namedRunner{ch, discord.Name})
	}
	return w, nil
}
