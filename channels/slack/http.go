package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/webhook"
)

// maxBody bounds a request body read before its signature is checked.
// Slack's largest deliveries are block_actions payloads, which carry the
// whole question message: the largest question the broker accepts, in a
// script of three UTF-8 bytes per character, makes about 202 KB of
// form-encoded payload.
const maxBody = 256 << 10

// The sub-paths Slack's app settings point at in http mode. Handler serves
// all three (and dispatches by content, so any one path works for all).
const (
	PathEvents       = "/slack/events"
	PathInteractions = "/slack/interactions"
	PathCommands     = "/slack/commands"
)

// Handler serves Slack's HTTP deliveries in http mode: the Events API
// (including the url_verification challenge), interactivity payloads and
// slash commands. It recognises each by its content, so the Event
// Subscriptions, Interactivity and Slash Command URLs may all point at
// the same path; PathEvents, PathInteractions and PathCommands are the
// documented ones. Every request must carry a valid signature made with
// the signing secret and a timestamp within five minutes: otherwise it
// gets 401 and nothing is processed. A body is read within 10 s and may
// hold 256 KiB (413 beyond). A signed request is taken once, on every
// instance sharing the store (Options.Replay): a slash command or an
// interaction sent again with the same body, or an event redelivered or
// replayed with an event_id already taken, gets 200 and is not processed
// again; when the store cannot say, the request gets 503. An action is acknowledged
// once the broker has recorded it, or after 2 s when recording takes
// longer (Slack waits 3 s); the person's reply follows.
func (c *Channel) Handler() http.Handler {
	return http.HandlerFunc(c.serveHTTP)
}

// Routes serves Handler under /slack/ in http mode; in socket mode the
// channel serves nothing.
func (c *Channel) Routes() []channels.Route {
	if c.cfg.Mode != ModeHTTP {
		return nil
	}
	return []channels.Route{{Pattern: "/slack/", Handler: c.Handler(), Webhook: true}}
}

func (c *Channel) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := webhook.ReadBody(w, r, maxBody)
	if err != nil {
		http.Error(w, err.Error(), webhook.Status(err))
		return
	}
	if err := c.verify(r.Header, body); err != nil {
		c.throttled.Warn("signature", "slack request refused", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "invalid Slack signature", http.StatusUnauthorized)
		return
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		c.serveEvent(w, r, body)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		http.Error(w, "malformed form body", http.StatusBadRequest)
		return
	}
	switch {
	case form.Get("ssl_check") == "1":
		w.WriteHeader(http.StatusOK) // Slack checking the slash command URL's certificate
	case form.Has("payload"):
		var cb slackapi.InteractionCallback
		if err := json.Unmarshal([]byte(form.Get("payload")), &cb); err != nil {
			http.Error(w, "malformed interaction payload", http.StatusBadRequest)
			return
		}
		if !c.takeOnce(w, r, requestKey(body), requestTTL) {
			return
		}
		c.recordThenAck(w, r, func(ctx context.Context) followUp { return c.interaction(ctx, cb) })
	case form.Has("command"):
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.Form, r2.PostForm = nil, nil
		s, err := slackapi.SlashCommandParse(r2)
		if err != nil {
			http.Error(w, "malformed slash command", http.StatusBadRequest)
			return
		}
		if s.ChannelID == "" || s.UserID == "" {
			http.Error(w, "slash command without channel_id or user_id", http.StatusBadRequest)
			return
		}
		if !c.takeOnce(w, r, requestKey(body), requestTTL) {
			return
		}
		c.recordThenAck(w, r, func(ctx context.Context) followUp { return c.slashCommand(ctx, s) })
	default:
		http.Error(w, "not a Slack interaction, command or event", http.StatusBadRequest)
	}
}

// verify checks Slack's v0 signature over the raw body.
func (c *Channel) verify(h http.Header, body []byte) error {
	if c.secrets.signingSecret == "" {
		return errors.New("no signing secret configured (http mode only)")
	}
	sv, err := slackapi.NewSecretsVerifier(h, c.secrets.signingSecret)
	if err != nil {
		return err
	}
	if _, err := sv.Write(body); err != nil {
		return err
	}
	return sv.Ensure()
}

// serveEvent answers an Events API delivery.
func (c *Channel) serveEvent(w http.ResponseWriter, r *http.Request, body []byte) {
	var outer struct {
		Type      string `json:"type"`
		Challenge string `json:"challenge"`
		EventID   string `json:"event_id"`
	}
	if err := json.Unmarshal(body, &outer); err != nil {
		http.Error(w, "malformed event", http.StatusBadRequest)
		return
	}
	switch outer.Type {
	case slackevents.URLVerification:
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, outer.Challenge)
		return
	case slackevents.CallbackEvent:
	default:
		w.WriteHeader(http.StatusOK)
		return
	}
	// A redelivered event is signed anew, so its event id names it; a
	// replayed one carries it too.
	key := eventKey(outer.EventID)
	if outer.EventID == "" {
		key = requestKey(body)
	}
	if !c.takeOnce(w, r, key, eventTTL) {
		return
	}
	ev, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
	if err != nil {
		w.WriteHeader(http.StatusOK) // an event type we do not handle is still received
		c.log.Debug("event not handled", "event_id", outer.EventID, "err", err)
		return
	}
	c.recordThenAck(w, r, func(ctx context.Context) followUp { return c.eventsAPI(ctx, ev) })
}
