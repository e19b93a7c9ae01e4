package slack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// slowInbound records an action only once release is closed (or after
// delay), as a store under load would; it remembers whether the context
// it recorded under was still alive.
type slowInbound struct {
	rec     *brokertest.Inbox
	delay   time.Duration
	release chan struct{}
	ctxErr  chan error
}

func (s *slowInbound) HandleInbound(ctx context.Context, in broker.Inbound) broker.Reply {
	if s.release != nil {
		<-s.release
	}
	time.Sleep(s.delay)
	s.ctxErr <- ctx.Err()
	return s.rec.HandleInbound(ctx, in)
}

// deliveries are the three kinds of HTTP deliveries that carry an action.
func deliveries(t *testing.T, e *testEnv) []struct {
	name, path, contentType string
	body                    []byte
	want                    string
} {
	t.Helper()
	m := postOne(t, e, sampleQuestion(), general)
	b, _ := m.Button("SQLite")
	return []struct {
		name, path, contentType string
		body                    []byte
		want                    string
	}{
		{"button tap", PathInteractions, formType,
			[]byte(url.Values{"payload": {string(mustJSON(t, slackfake.ClickButton(m, ana, b)))}}.Encode()), "/answer k7m2qx 2"},
		{"slash command", PathCommands, formType,
			[]byte(slackfake.SlashCommand(ana, general, "general", "/answer", "k7m2qx 1").Encode()), "/answer k7m2qx 1"},
		{"reply in the thread", PathEvents, "application/json",
			mustJSON(t, slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "2", ThreadTS: m.TS})), "2"},
	}
}

func TestHTTPModeRecordsTheActionBeforeTheAck(t *testing.T) {
	slow := &slowInbound{rec: &brokertest.Inbox{}, delay: 300 * time.Millisecond, ctxErr: make(chan error, 10)}
	e := newEnv(t, ModeHTTP, slow)
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	for i, d := range deliveries(t, e) {
		t.Run(d.name, func(t *testing.T) {
			code, _ := deliver(t, srv, d.path, d.contentType, d.body, slackfake.Sign(testSecret, time.Now(), d.body))
			if code != http.StatusOK {
				t.Fatalf("status %d, want 200", code)
			}
			// Slack has its 200: the action must be recorded by now.
			got := slow.rec.All()
			if len(got) != i+1 || got[i].Text != d.want {
				t.Fatalf("when Slack got its 200 the broker had recorded %+v, want %q", got, d.want)
			}
			waitEphemeral(t, e.fake, ana.ID, "Recorded: "+d.want)
		})
	}
}

func TestHTTPModeAcksASlowRecordingInTimeAndFinishesIt(t *testing.T) {
	slow := &slowInbound{rec: &brokertest.Inbox{}, ctxErr: make(chan error, 10)}
	e := newEnv(t, ModeHTTP, slow)
	e.ch.ackWithin = 200 * time.Millisecond
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	for i, d := range deliveries(t, e) {
		t.Run(d.name, func(t *testing.T) {
			slow.release = make(chan struct{})
			// The broker does not record until release: the 200 must come
			// anyway, and recording must go on after the request ended.
			code, _ := deliver(t, srv, d.path, d.contentType, d.body, slackfake.Sign(testSecret, time.Now(), d.body))
			if code != http.StatusOK {
				t.Fatalf("status %d, want 200", code)
			}
			if got := slow.rec.All(); len(got) != i {
				t.Fatalf("recorded before release: %+v", got)
			}
			close(slow.release)
			if err := <-slow.ctxErr; err != nil {
				t.Fatalf("recording ran on a cancelled context: %v", err)
			}
			got := slow.rec.Wait(t, i+1)
			if got[i].Text != d.want {
				t.Errorf("recorded %q, want %q", got[i].Text, d.want)
			}
			waitEphemeral(t, e.fake, ana.ID, "Recorded: "+d.want)
		})
	}
}

func TestSocketModeRecordsTheActionBeforeTheAck(t *testing.T) {
	slow := &slowInbound{rec: &brokertest.Inbox{}, delay: 300 * time.Millisecond, ctxErr: make(chan error, 10)}
	e := newEnv(t, ModeSocket, slow)
	e.run(t)
	m := postOne(t, e, sampleQuestion(), general)
	b, _ := m.Button("SQLite")
	e.send(t, "interactive", slackfake.ClickButton(m, ana, b)) // waits for the ack
	if got := slow.rec.All(); len(got) != 1 || got[0].Text != "/answer k7m2qx 2" {
		t.Fatalf("when the envelope was acked the broker had recorded %+v", got)
	}
}
