package discord

import (
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// httpEnv is a channel in http mode with its endpoint served.
func httpEnv(t *testing.T, h broker.InboundHandler) (*env, string, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, h, func(c *Config) { c.Mode, c.PublicKey = ModeHTTP, hex.EncodeToString(pub) })
	srv := httptest.NewServer(e.ch.Handler())
	t.Cleanup(srv.Close)
	return e, srv.URL + "/discord/interactions", priv
}

func TestHTTPPing(t *testing.T) {
	rec := &brokertest.Inbox{}
	e, url, priv := httpEnv(t, rec)
	_, body := e.fake.PingInteraction()
	d, err := e.fake.Deliver(testCtx(t), url, priv, time.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusOK || strings.TrimSpace(string(d.Body)) != `{"type":1}` {
		t.Errorf("PING answered %d %s, want 200 {\"type\":1}", d.Status, d.Body)
	}
	if len(rec.All()) != 0 {
		t.Errorf("a PING reached the broker")
	}
}

func TestHTTPSignedInteraction(t *testing.T) {
	q := question("k7m2qx", dbPrompt())
	resolved := q.Clone()
	resolved.Status, resolved.ResolvedAt = broker.StatusAnswered, fixed.Add(2*time.Minute)
	resolved.AnsweredBy = &broker.Responder{Channel: Name, Name: "ana"}
	resolved.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	rec := &brokertest.Inbox{Reply: func(broker.Inbound) broker.Reply {
		return broker.Reply{OK: true, Text: "Recorded: SQLite", Question: resolved}
	}}
	e, url, priv := httpEnv(t, rec)
	m, _ := e.post(t, q)
	ana := e.fake.NewUser("ana", "333")
	_, body := e.fake.ButtonInteraction(ana, m, "1o:k7m2qx.1/1:2")
	d, err := e.fake.Deliver(testCtx(t), url, priv, time.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusOK || d.Response.Type != discordfake.ResponseUpdateMessage {
		t.Fatalf("answered %d %s, want 200 and an update of the message", d.Status, d.Body)
	}
	in := rec.Wait(t, 1)[0]
	if in.Text != "/answer k7m2qx 2" || in.User != ana.ID || in.Chat != e.chat || in.Roles[0] != "333" {
		t.Errorf("inbound = %+v", in)
	}
	after := e.fake.Message(m.ID)
	if len(after.Components) != 0 || !strings.Contains(after.Content, "Answered by ana") {
		t.Errorf("message after the tap: %d components, %q", len(after.Components), after.Content)
	}
}

func TestHTTPRefusesForgedRequests(t *testing.T) {
	_, otherKey, _ := ed25519.GenerateKey(nil)
	rec := &brokertest.Inbox{}
	e, url, priv := httpEnv(t, rec)
	m, _ := e.post(t, question("k7m2qx", dbPrompt()))
	ana := e.fake.NewUser("ana")
	_, body := e.fake.ButtonInteraction(ana, m, "1o:k7m2qx.1/1:2")
	now := time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	old := strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10)
	future := strconv.FormatInt(now.Add(6*time.Minute).Unix(), 10)
	tests := []struct {
		name, ts, sig string
		body          []byte
	}{
		{"signed by another key", ts, discordfake.Sign(otherKey, ts, body), body},
		{"body changed after signing", ts, discordfake.Sign(priv, ts, body), []byte(strings.Replace(string(body), "k7m2qx.1/1:2", "k7m2qx.1/1:1", 1))},
		{"timestamp changed after signing", old, discordfake.Sign(priv, ts, body), body},
		{"validly signed but six minutes old", old, discordfake.Sign(priv, old, body), body},
		{"validly signed but from the future", future, discordfake.Sign(priv, future, body), body},
		{"signature not hex", ts, "zz", body},
		{"no signature", ts, "", body},
		{"no timestamp", "", discordfake.Sign(priv, "", body), body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.fake.DeliverSigned(testCtx(t), url, tt.ts, tt.sig, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != http.StatusUnauthorized {
				t.Errorf("answered %d %s, want 401", d.Status, d.Body)
			}
		})
	}
	if len(rec.All()) != 0 {
		t.Errorf("a forged request reached the broker: %+v", rec.All())
	}
	if after := e.fake.Message(m.ID); after.Edits != 0 || len(after.Components) == 0 {
		t.Errorf("a forged request changed the message")
	}
}

func TestHTTPBadRequests(t *testing.T) {
	e, url, priv := httpEnv(t, &brokertest.Inbox{})
	t.Run("GET", func(t *testing.T) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET answered %d, want 405", resp.StatusCode)
		}
	})
	t.Run("signed body that is no interaction", func(t *testing.T) {
		d, err := e.fake.Deliver(testCtx(t), url, priv, time.Now(), []byte("not json"))
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != http.StatusBadRequest || !strings.Contains(string(d.Body), "not an interaction") {
			t.Errorf("answered %d %s, want 400 naming the problem", d.Status, d.Body)
		}
	})
	t.Run("gateway mode has no endpoint", func(t *testing.T) {
		g := newEnv(t, &brokertest.Inbox{}, nil)
		rr := httptest.NewRecorder()
		g.ch.Handler().ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
		if rr.Code != http.StatusNotFound {
			t.Errorf("answered %d, want 404", rr.Code)
		}
	})
}
