package slack

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// deliver posts body to the handler as Slack would, with headers h.
func deliver(t *testing.T, srv *httptest.Server, path, contentType string, body []byte, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const formType = "application/x-www-form-urlencoded"

func TestHTTPModeVerifiesEveryRequest(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeHTTP, rec)
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	m := postOne(t, e, sampleQuestion(), general)
	b, _ := m.Button("SQLite")
	click := url.Values{"payload": {string(mustJSON(t, slackfake.ClickButton(m, ana, b)))}}.Encode()
	body := []byte(click)
	now := time.Now()

	refused := []struct {
		name string
		h    http.Header
	}{
		{"no headers", http.Header{}},
		{"signature only", func() http.Header {
			h := slackfake.Sign(testSecret, now, body)
			h.Del("X-Slack-Request-Timestamp")
			return h
		}()},
		{"wrong secret", slackfake.Sign("not-the-secret", now, body)},
		{"signature of another body", slackfake.Sign(testSecret, now, []byte(click+"x"))},
		{"stale timestamp", slackfake.Sign(testSecret, now.Add(-6*time.Minute), body)},
		{"future timestamp", slackfake.Sign(testSecret, now.Add(6*time.Minute), body)},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			code, _ := deliver(t, srv, PathInteractions, formType, body, tt.h)
			if code != http.StatusUnauthorized {
				t.Errorf("status = %d, want 401", code)
			}
		})
	}
	e.ch.drain()
	if got := rec.All(); len(got) != 0 {
		t.Fatalf("refused requests reached the broker: %+v", got)
	}

	t.Run("valid interaction", func(t *testing.T) {
		code, _ := deliver(t, srv, PathInteractions, formType, body, slackfake.Sign(testSecret, now, body))
		if code != http.StatusOK {
			t.Fatalf("status = %d, want 200", code)
		}
		got := rec.Wait(t, 1)[0]
		if got.Text != "/answer k7m2qx 2" || got.Chat != general || got.User != ana.ID {
			t.Errorf("inbound = %+v", got)
		}
		waitEphemeral(t, e.fake, ana.ID, "Recorded: /answer k7m2qx 2")
	})
	t.Run("valid slash command", func(t *testing.T) {
		n := len(rec.All())
		form := []byte(slackfake.SlashCommand(bob, general, "general", "/answer", "k7m2qx 1").Encode())
		code, _ := deliver(t, srv, PathCommands, formType, form, slackfake.Sign(testSecret, time.Now(), form))
		if code != http.StatusOK {
			t.Fatalf("status = %d, want 200", code)
		}
		got := rec.Wait(t, n+1)[n]
		if got.Text != "/answer k7m2qx 1" || got.User != bob.ID || got.Name != "bob" {
			t.Errorf("inbound = %+v", got)
		}
	})
	t.Run("signed slash command without channel or user", func(t *testing.T) {
		n := len(rec.All())
		for _, field := range []string{"channel_id", "user_id"} {
			f := slackfake.SlashCommand(bob, general, "general", "/answer", "k7m2qx 1")
			f.Del(field)
			form := []byte(f.Encode())
			code, resp := deliver(t, srv, PathCommands, formType, form, slackfake.Sign(testSecret, time.Now(), form))
			if code != http.StatusBadRequest || !strings.Contains(resp, "without channel_id or user_id") {
				t.Errorf("without %s: %d %q, want 400 naming the missing field", field, code, resp)
			}
		}
		e.ch.drain()
		if got := rec.All(); len(got) != n {
			t.Errorf("a slash command without channel or user reached the broker: %+v", got[n:])
		}
	})
}

func TestHTTPModeEvents(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeHTTP, rec)
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	m := postOne(t, e, sampleQuestion(), general)

	t.Run("url verification", func(t *testing.T) {
		body := []byte(`{"token":"fake-verification-token","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
		code, resp := deliver(t, srv, PathEvents, "application/json", body, slackfake.Sign(testSecret, time.Now(), body))
		if code != http.StatusOK || resp != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
			t.Errorf("challenge answer = %d %q", code, resp)
		}
		code, _ = deliver(t, srv, PathEvents, "application/json", body, nil)
		if code != http.StatusUnauthorized {
			t.Errorf("unsigned challenge: status %d, want 401", code)
		}
	})
	t.Run("retried delivery is processed once", func(t *testing.T) {
		body := mustJSON(t, slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "2", ThreadTS: m.TS, EventID: "Ev0RETRY01"}))
		for retry := range 3 {
			h := slackfake.Sign(testSecret, time.Now(), body)
			if retry > 0 {
				h.Set("X-Slack-Retry-Num", strings.Repeat("1", 1))
				h.Set("X-Slack-Retry-Reason", "http_timeout")
			}
			if code, _ := deliver(t, srv, PathEvents, "application/json", body, h); code != http.StatusOK {
				t.Fatalf("delivery %d: status %d, want 200", retry, code)
			}
		}
		e.ch.drain()
		got := rec.All()
		if len(got) != 1 || got[0].Text != "2" || got[0].ReplyTo != m.TS || got[0].Name != "ana" {
			t.Errorf("inbounds = %+v, want one reply to %s", got, m.TS)
		}
	})
	t.Run("not a Slack delivery", func(t *testing.T) {
		body := []byte("hello=world")
		code, _ := deliver(t, srv, PathEvents, formType, body, slackfake.Sign(testSecret, time.Now(), body))
		if code != http.StatusBadRequest {
			t.Errorf("status %d, want 400", code)
		}
	})
}

func TestHTTPModeEndToEnd(t *testing.T) {
	e := newBrokerEnvMode(t, ModeHTTP, broker.Route{})
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	q, m := e.ask(t, nil)
	click := []byte(url.Values{"payload": {string(mustJSON(t, slackfake.ClickButton(m, ana, e.button(t, m, "SQLite"))))}}.Encode())

	for _, h := range []http.Header{
		slackfake.Sign("forged-secret", time.Now(), click),
		slackfake.Sign(testSecret, time.Now().Add(-10*time.Minute), click),
		{},
	} {
		if code, _ := deliver(t, srv, PathInteractions, formType, click, h); code != http.StatusUnauthorized {
			t.Errorf("forged delivery: status %d, want 401", code)
		}
	}
	e.ch.drain()
	if got, _ := e.b.Get(context.Background(), "agent", q.ID); got.Status != broker.StatusPending {
		t.Fatalf("a forged tap changed the question: %s", got.Status)
	}

	result := e.wait(q.ID)
	if code, _ := deliver(t, srv, PathInteractions, formType, click, slackfake.Sign(testSecret, time.Now(), click)); code != http.StatusOK {
		t.Fatalf("signed delivery: status %d", code)
	}
	got := <-result
	if got.Status != broker.StatusAnswered || got.AnsweredBy.Name != "ana" || got.Answers["Which database?"].Selected[0] != "SQLite" {
		t.Errorf("result = %s %+v by %+v", got.Status, got.Answers, got.AnsweredBy)
	}
	e.copyShows(t, m, "Answered by ana at")
	waitEphemeral(t, e.fake, ana.ID, "Recorded: SQLite")
}
