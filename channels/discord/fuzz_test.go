package discord

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// FuzzInteraction feeds arbitrary signed bodies to the HTTP interactions
// endpoint, the code that turns Discord's raw interaction JSON into broker
// input. Whatever the body, the handler must not panic, must answer 200
// with a JSON response or a 400 that says what is wrong, and every Inbound
// must name this channel.
func FuzzInteraction(f *testing.F) {
	fake := discordfake.New()
	defer fake.Close()
	guild := fake.NewGuild()
	fake.AddChannel(guild)
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Setenv("ASKBRIDGE_FUZZ_DISCORD_TOKEN", fake.Token)
	h := &brokertest.Inbox{}
	ch, err := New(Config{TokenEnv: "ASKBRIDGE_FUZZ_DISCORD_TOKEN", APIURL: fake.URL(), ApplicationID: fake.AppID,
		GuildID: guild, Mode: ModeHTTP, PublicKey: hex.EncodeToString(pub)}, h, channels.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatalf("New: %v", err)
	}
	for _, s := range discordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		req := httptest.NewRequest(http.MethodPost, "/discord/interactions", bytes.NewReader(body))
		req.Header.Set("X-Signature-Timestamp", ts)
		req.Header.Set("X-Signature-Ed25519", discordfake.Sign(priv, ts, body))
		rec := httptest.NewRecorder()
		ch.Handler().ServeHTTP(rec, req)
		ch.late.Wait() // follow-ups of slow answers
		switch rec.Code {
		case http.StatusOK:
			if !strings.HasPrefix(rec.Body.String(), `{"type":`) {
				t.Errorf("200 with a body that is no interaction response: %q", rec.Body.String())
			}
		case http.StatusBadRequest:
			if !strings.Contains(rec.Body.String(), "discord interactions:") {
				t.Errorf("400 without saying why: %q", rec.Body.String())
			}
		default:
			t.Errorf("status %d for %q", rec.Code, body)
		}
		for _, in := range h.Take() {
			if in.Channel != Name {
				t.Errorf("inbound %+v does not name the discord channel", in)
			}
		}
	})
}

// discordSeeds are real interaction shapes: a ping, button taps, menus
// and forms (with steps as custom ids, and with the formats of earlier
// bridges), slash commands in a guild and a DM, and broken bodies.
var discordSeeds = []string{
	`{"id":"1100000000000000021","application_id":"1000000000000000001","type":3,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"},"roles":[]},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"1o:k7m2qx.1/1:2","component_type":2}}`,
	`{"id":"1100000000000000022","application_id":"1000000000000000001","type":3,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"},"roles":[]},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"1a:k7m2qx.2/3","component_type":3,"values":["0","2"]}}`,
	`{"id":"1100000000000000023","application_id":"1000000000000000001","type":3,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"data":{"custom_id":"1n:k7m2qx.1/1","component_type":2}}`,
	`{"id":"1100000000000000024","application_id":"1000000000000000001","type":5,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"1x:k7m2qx.1/1","components":[{"type":1,"components":[{"type":4,"custom_id":"numbers","value":"2"}]},{"type":1,"components":[{"type":4,"custom_id":"text","value":"note"}]}]}}`,
	`{"id":"1100000000000000025","application_id":"1000000000000000001","type":5,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"data":{"custom_id":"1a:k7m2qx.1/1:13","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":""}]}]}}`,
	`{"id":"1100000000000000001","application_id":"1000000000000000001","type":1,"token":"aW50ZXJhY3Rpb246abc","version":1,"user":{"id":"643945264868098049","username":"discord","discriminator":"0000","system":true}}`,
	`{"id":"1100000000000000002","application_id":"1000000000000000001","type":3,"token":"aW50ZXJhY3Rpb246abd","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana","discriminator":"0","global_name":"Ana"},"roles":["1500000000000000001"],"permissions":"0"},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001","content":"Which database?","components":[]},"data":{"custom_id":"/answer k7m2qx 1","component_type":2}}`,
	`{"id":"1100000000000000003","application_id":"1000000000000000001","type":3,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"},"roles":[]},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"m:k7m2qx:0:1","component_type":3,"values":["0","2"]}}`,
	`{"id":"1100000000000000004","application_id":"1000000000000000001","type":3,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"data":{"custom_id":"o:k7m2qx:0:1","component_type":2}}`,
	`{"id":"1100000000000000005","application_id":"1000000000000000001","type":5,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"om:k7m2qx:0:1","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"CockroachDB"}]}]}}`,
	`{"id":"1100000000000000006","application_id":"1000000000000000001","type":2,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"data":{"id":"1700000000000000001","name":"answer","type":1,"options":[{"name":"id","type":3,"value":"k7m2qx"},{"name":"choice","type":3,"value":"2"}]}}`,
	`{"id":"1100000000000000007","application_id":"1000000000000000001","type":2,"token":"t","version":1,"channel_id":"1300000000000000009","user":{"id":"1400000000000000001","username":"ana"},"data":{"id":"1700000000000000002","name":"pending","type":1}}`,
	`{"id":"1100000000000000008","type":2,"token":"t","version":1,"data":{"name":"decline","type":1,"options":[{"name":"id","type":3,"value":"k7m2qx"},{"name":"reason","type":3,"value":"not now"}]}}`,
	`{"id":"1100000000000000009","type":3,"token":"t","version":1,"data":{"custom_id":"m:k7m2qx:9:1","component_type":3,"values":["x"]}}`,
	`{"id":"1100000000000000010","application_id":"1000000000000000001","type":3,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"},"roles":[]},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"mn:k7m2qx:0:1","component_type":3,"values":["0","2"]}}`,
	`{"id":"1100000000000000011","application_id":"1000000000000000001","type":5,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"message":{"id":"1600000000000000001","channel_id":"1300000000000000001"},"data":{"custom_id":"mm:k7m2qx:0:1:13","components":[{"type":1,"components":[{"type":4,"custom_id":"text","value":"and tags"}]}]}}`,
	`{"id":"1100000000000000012","application_id":"1000000000000000001","type":5,"token":"t","version":1,"guild_id":"1200000000000000001","channel_id":"1300000000000000001","member":{"user":{"id":"1400000000000000001","username":"ana"}},"data":{"custom_id":"om:k7m2qx:0:1","components":[{"type":1,"components":[{"type":4,"custom_id":"numbers","value":"2, 1"}]},{"type":1,"components":[{"type":4,"custom_id":"text","value":"note"}]}]}}`,
	`{"type":4}`,
	`{"type":"x"}`,
	`{}`,
	`null`,
	``,
}
