package discord

import (
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
)

func TestConfigValidate(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	key := hex.EncodeToString(pub)
	tests := []struct {
		name string
		cfg  Config
		want string // "" = valid
	}{
		{"minimal gateway", Config{TokenEnv: "T"}, ""},
		{"http with key", Config{TokenEnv: "T", Mode: ModeHTTP, PublicKey: key, GuildID: "123", ApplicationID: "456"}, ""},
		{"no token env", Config{}, "discord.token_env: required"},
		{"bad mode", Config{TokenEnv: "T", Mode: "webhook"}, `discord.mode: "webhook" is not a mode`},
		{"http without key", Config{TokenEnv: "T", Mode: ModeHTTP}, "discord.public_key: required in http mode"},
		{"key not hex", Config{TokenEnv: "T", Mode: ModeHTTP, PublicKey: "zz"}, "discord.public_key: not hex"},
		{"key too short", Config{TokenEnv: "T", Mode: ModeHTTP, PublicKey: "abcd"}, "discord.public_key: 2 bytes, want 32"},
		{"guild not an id", Config{TokenEnv: "T", GuildID: "my-guild"}, `discord.guild_id: "my-guild" is not a Discord id`},
		{"api url not a url", Config{TokenEnv: "T", APIURL: "discord.com"}, "discord.api_url"},
		{"api url with path", Config{TokenEnv: "T", APIURL: "https://proxy.example/api/v9"}, "give the host only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestNewNeedsToken(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_DISCORD_EMPTY", "")
	_, err := New(Config{TokenEnv: "ASKBRIDGE_TEST_DISCORD_EMPTY"}, &brokertest.Inbox{}, channels.Options{})
	if err == nil || !strings.Contains(err.Error(), "ASKBRIDGE_TEST_DISCORD_EMPTY") {
		t.Errorf("New = %v, want an error naming the empty variable", err)
	}
	if _, err := New(Config{TokenEnv: "X"}, nil, channels.Options{}); err == nil {
		t.Errorf("New without a handler succeeded")
	}
}
