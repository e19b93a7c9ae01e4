package channels

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Options are what the wiring gives every channel's constructor besides
// its configuration and the inbound handler.
type Options struct {
	// Logger defaults to slog.Default(). New adds channel=<name> once;
	// callers pass the bridge's logger as it is.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Location is the time zone of times shown to people (default UTC);
	// pass the broker's Location().
	Location *time.Location
	// Replay remembers the webhook requests a channel has taken, in the
	// store, so that a replayed copy is dropped whichever instance
	// receives it. Nil: the channel remembers them in its own process.
	Replay broker.ReplayGuard
	// Languages chooses the language of each copy (nil: English).
	Languages *broker.Languages
}

// Language is the locale key every channel's section has
// (channels.X.locale: "de", "ja"; docs/languages.md), embedded inline in
// each channel's Config.
type Language struct {
	Locale string `yaml:"locale"`
}

// ChannelLocale returns the configured locale.
func (l Language) ChannelLocale() string { return l.Locale }

// For returns o with its defaults filled in and the logger tagged with
// channel=name, the one place a channel's log lines get that field.
func (o Options) For(name string) Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With("channel", name)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	return o
}

// Route is one HTTP handler a channel offers: a webhook of its platform
// or the web inbox's pages.
type Route struct {
	// Pattern is the http.ServeMux pattern ("/slack/", "/").
	Pattern string
	// Handler serves it.
	Handler http.Handler
	// Webhook is true for a platform webhook, which checks its own
	// signature or secret (the edge guard lets platforms reach it).
	Webhook bool
}

// Router is implemented by channels that serve HTTP. Routes reports what
// the channel's configuration turns on; it may be empty (Slack in socket
// mode).
type Router interface {
	Routes() []Route
}
