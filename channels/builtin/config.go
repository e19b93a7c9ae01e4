package builtin

import (
	"errors"
	"fmt"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/channels/discord"
	"github.com/askbridge/askbridge/channels/slack"
	"github.com/askbridge/askbridge/channels/telegram"
	"github.com/askbridge/askbridge/channels/web"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/i18n"
)

// Config is the channels section. The text channel and the web inbox are
// on unless disabled; the chat platforms are on when their section is
// present.
type Config struct {
	CLI      cli.Config       `yaml:"cli"`
	Web      web.Config       `yaml:"web"`
	Telegram *telegram.Config `yaml:"telegram"`
	Slack    *slack.Config    `yaml:"slack"`
	Discord  *discord.Config  `yaml:"discord"`

	// people is the directory the web inbox signs people in from
	// (WithPeople).
	people *broker.People
}

// WithPeople returns c whose web inbox signs in the people of d: their
// own tokens, token_person and single sign-on.
func (c Config) WithPeople(d *broker.People) Config {
	c.people = d
	return c
}

// secretsChecker is a channel section that checks the values of the
// secrets it names, as its New reads them.
type secretsChecker interface{ CheckSecrets() error }

// localed is a channel section with a locale key (channels.Language).
type localed interface{ ChannelLocale() string }

// Locales returns each enabled channel's locale, as i18n.Parse returns
// it; channels without one are left out.
func (c Config) Locales() map[string]string {
	out := map[string]string{}
	for _, s := range c.sections(false) {
		if l, ok := s.cfg.(localed); ok {
			if loc, err := i18n.Parse(l.ChannelLocale()); err == nil && loc != "" {
				out[s.name] = loc
			}
		}
	}
	return out
}

// section is one channel the configuration turns on: its section (checked
// by its own Validate, and for unset variables) and how to build it.
type section struct {
	name string
	cfg  interface{ Validate() error }
	// text is true for channels used through POST /v1/commands.
	text  bool
	build func(b *broker.Broker, w *Wiring, o channels.Options) (broker.Channel, error)
}

// sections lists the channels this configuration turns on, in the order
// they are built.
func (c Config) sections(loop bool) []section {
	var out []section
	if !c.CLI.Disabled {
		out = append(out, section{name: cli.Name, cfg: c.CLI, text: true,
			build: func(b *broker.Broker, _ *Wiring, o channels.Options) (broker.Channel, error) {
				return built(cli.New(c.CLI, b, o))
			}})
	}
	if !c.Web.Disabled {
		out = append(out, section{name: web.Name, cfg: c.Web,
			build: func(b *broker.Broker, w *Wiring, o channels.Options) (broker.Channel, error) {
				// Both stores keep sign-in sessions, so every instance accepts them.
				inbox, err := web.New(c.Web, b, web.Options{Logger: o.Logger, Now: o.Now, Location: o.Location,
					Lister: b, Loopback: loop, Sessions: w.sessions, Copies: b, People: c.people, Rules: b, Conversations: b, Presence: w.presence, Push: w.push, Languages: o.Languages})
				if err == nil {
					w.InboxURL = inbox.URL
				}
				return built(inbox, err)
			}})
	}
	if t := c.Telegram; t != nil {
		out = append(out, section{name: telegram.Name, cfg: t,
			build: func(b *broker.Broker, _ *Wiring, o channels.Options) (broker.Channel, error) {
				return built(telegram.New(*t, b, o))
			}})
	}
	if s := c.Slack; s != nil {
		out = append(out, section{name: slack.Name, cfg: s,
			build: func(b *broker.Broker, _ *Wiring, o channels.Options) (broker.Channel, error) {
				return built(slack.New(*s, b, o))
			}})
	}
	if d := c.Discord; d != nil {
		out = append(out, section{name: discord.Name, cfg: d,
			build: func(b *broker.Broker, _ *Wiring, o channels.Options) (broker.Channel, error) {
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

// Enabled names the channels this configuration turns on.
func (c Config) Enabled() map[string]bool {
	on := map[string]bool{}
	for _, s := range c.sections(false) {
		on[s.name] = true
	}
	return on
}

// DefaultTargets is the default route when the file names none: the web
// inbox and the text channel, the two that need no chat id.
func (c Config) DefaultTargets() []string {
	var out []string
	on := c.Enabled()
	for _, name := range []string{web.Name, cli.Name} {
		if on[name] {
			out = append(out, name)
		}
	}
	return out
}

// Validate checks each configured channel's own settings, reporting every
// problem, and the secrets it reads that are set as the channel's New
// does (CheckSecrets), so that check-config and serve refuse alike. The
// web inbox's section is checked even when the inbox is disabled.
func (c Config) Validate() error {
	var p config.Problems
	checked := map[string]bool{}
	for _, s := range c.sections(false) {
		if err := s.cfg.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels."+s.name, s.cfg))
		if l, ok := s.cfg.(localed); ok {
			if _, err := i18n.Parse(l.ChannelLocale()); err != nil {
				p.Add(fmt.Errorf("channels.%s.locale: %w", s.name, err))
			}
		}
		if sc, ok := s.cfg.(secretsChecker); ok {
			if err := sc.CheckSecrets(); err != nil {
				for _, e := range config.List(err) {
					p.Add(fmt.Errorf("channels.%w", e))
				}
			}
		}
		checked[s.name] = true
	}
	if !checked[web.Name] {
		if err := c.Web.Validate(); err != nil {
			p.Add(fmt.Errorf("channels.%w", err))
		}
		p.Add(config.CheckEnv("channels.web", c.Web))
	}
	return errors.Join(p...)
}

// ValidatePeople checks how people sign in to the web inbox: their own
// tokens, token_person and single sign-on (web.ValidatePeople). exposed
// says the bridge is reachable beyond loopback.
func (c Config) ValidatePeople(people []broker.Person, exposed bool) error {
	return web.ValidatePeople(c.Web, people, exposed)
}

// InboxLocked reports whether the web inbox is off or asks to sign in,
// so that the HTTP edge may serve it through a reverse proxy.
func (c Config) InboxLocked(people []broker.Person) bool {
	return c.Web.Disabled || c.Web.SignsIn(people)
}
