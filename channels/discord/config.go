package discord

import (
	"github.com/askbridge/askbridge/channels"

	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Connection modes.
const (
	// ModeGateway receives interactions over the gateway WebSocket.
	ModeGateway = "gateway"
	// ModeHTTP receives interactions at the HTTP endpoint served by
	// Channel.Handler; messages still arrive over the gateway.
	ModeHTTP = "http"
)

// DefaultAPIURL is Discord's own API host.
const DefaultAPIURL = "https://discord.com"

// Config configures the Discord channel. It is read from YAML with
// KnownFields, so a misspelt key is an error.
type Config struct {
	// TokenEnv names the environment variable holding the bot token
	// (required). The token itself never appears in configuration.
	TokenEnv string `yaml:"token_env"`
	// ApplicationID is the application's id, used to register the
	// /answer and /decline commands. When empty it is taken from the
	// gateway's READY event.
	ApplicationID string `yaml:"application_id"`
	// GuildID, when set, registers the commands in that guild only (they
	// appear at once); otherwise they are registered globally.
	GuildID string `yaml:"guild_id"`
	// Mode is "gateway" (default) or "http".
	Mode string `yaml:"mode"`
	// PublicKey is the application's public key in hex, required in http
	// mode to verify interaction requests.
	PublicKey string `yaml:"public_key"`
	// APIURL is the base URL of the Discord API (default
	// "https://discord.com"): a proxy, or a fake server in tests.
	APIURL string `yaml:"api_url"`
	// MessageContent requests the privileged message-content intent, so
	// that "!answer k7m2qx 2" typed anywhere in a guild channel is read.
	// It must also be enabled for the bot in the developer portal. Without
	// it, replies to the bot, mentions of it and direct messages are still
	// read.
	MessageContent bool `yaml:"message_content"`
	// Language is the channel's locale (channels.X.locale).
	channels.Language `yaml:",inline"`
}

// withDefaults returns cfg with empty fields set to their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Mode == "" {
		cfg.Mode = ModeGateway
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	return cfg
}

// Validate checks cfg and names the first key that is wrong.
func (cfg Config) Validate() error {
	cfg = cfg.withDefaults()
	var errs []error
	if strings.TrimSpace(cfg.TokenEnv) == "" {
		errs = append(errs, errors.New("discord.token_env: required: the name of the environment variable holding the bot token"))
	}
	switch cfg.Mode {
	case ModeGateway:
	case ModeHTTP:
		if cfg.PublicKey == "" {
			errs = append(errs, errors.New("discord.public_key: required in http mode (the application's public key, hex)"))
		} else if _, err := parsePublicKey(cfg.PublicKey); err != nil {
			errs = append(errs, fmt.Errorf("discord.public_key: %w", err))
		}
	default:
		errs = append(errs, fmt.Errorf("discord.mode: %q is not a mode: use %q or %q", cfg.Mode, ModeGateway, ModeHTTP))
	}
	if cfg.PublicKey != "" && cfg.Mode != ModeHTTP {
		if _, err := parsePublicKey(cfg.PublicKey); err != nil {
			errs = append(errs, fmt.Errorf("discord.public_key: %w", err))
		}
	}
	for _, f := range []struct{ key, v string }{{"application_id", cfg.ApplicationID}, {"guild_id", cfg.GuildID}} {
		if f.v != "" && !snowflake(f.v) {
			errs = append(errs, fmt.Errorf("discord.%s: %q is not a Discord id (digits only)", f.key, f.v))
		}
	}
	if u, err := url.Parse(cfg.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("discord.api_url: %q is not an http(s) URL", cfg.APIURL))
	} else if u.Path != "" && u.Path != "/" {
		errs = append(errs, fmt.Errorf("discord.api_url: %q: give the host only (the /api/v9 path is added)", cfg.APIURL))
	}
	return errors.Join(errs...)
}

func parsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, errors.New("not hex")
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// snowflake reports whether s looks like a Discord id.
func snowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
