package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
)

// enabledChannels names the channels this configuration turns on.
func (c *Config) enabledChannels() map[string]bool {
	on := map[string]bool{}
	if !c.Channels.CLI.Disabled {
		on[cli.Name] = true
	}
	return on
}

// defaultTargets is the default route when the file names none.
func (c *Config) defaultTargets() []string {
	var out []string
	for _, name := range []string{cli.Name} {
		if c.enabledChannels()[name] {
			out = append(out, name)
		}
	}
	return out
}

// checkChannels validates each configured channel's own settings.
func (c *Config) checkChannels() error {
	return nil
}

// wiring is what serve needs from the channels besides registering them.
type wiring struct {
	// textChannels may be used through POST /v1/commands.
	textChannels []string
	// handlers are mounted on the HTTP server (webhooks, the web inbox).
	handlers map[string]http.Handler
	// runners are inbound loops (long polling, gateways, sockets).
	runners []namedRunner
	// jobs run beside the server until it stops.
	jobs []func(ctx context.Context)
	// inboxURL, when set, tells people where the web inbox is.
	inboxURL func(addr string) string
}

// buildChannels creates every configured channel and registers it.
func buildChannels(cfg *Config, b *broker.Broker, loop bool, loc *time.Location, log *slog.Logger) (*wiring, error) {
	w := &wiring{handlers: map[string]http.Handler{}}
	_, _ = loop, loc
	if !cfg.Channels.CLI.Disabled {
		b.Register(cli.New(cli.Name))
		w.textChannels = append(w.textChannels, cli.Name)
	}
	_ = log
	return w, nil
}
