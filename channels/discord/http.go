package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/webhook"
)

// maxInteractionBody bounds the size of an interaction request, which is
// read before its signature is checked. A tap on the largest question the
// broker accepts is under 10 KB (a message's content stops at 2000
// characters); a modal's text under 25 KB.
const maxInteractionBody = 64 << 10

// Handler returns the HTTP interactions endpoint (mode "http"): set its
// public URL as the application's Interactions Endpoint URL. Every request
// must carry a valid Ed25519 signature of the application's public key
// over X-Signature-Timestamp and the body, and a timestamp less than five
// minutes old; anything else is refused with 401 and changes nothing, and
// is logged at most once a second with a count. The body is read within
// 10 s and may hold 64 KiB (413 beyond).
func (c *Channel) Handler() http.Handler {
	return http.HandlerFunc(c.serveInteraction)
}

// Routes serves Handler at /discord/interactions in http mode; in
// gateway mode the channel serves nothing.
func (c *Channel) Routes() []channels.Route {
	if c.cfg.Mode != ModeHTTP {
		return nil
	}
	return []channels.Route{{Pattern: "/discord/interactions", Handler: c.Handler(), Webhook: true}}
}

func (c *Channel) serveInteraction(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "discord interactions: use POST", http.StatusMethodNotAllowed)
		return
	}
	if c.publicKey == nil {
		http.Error(w, "discord interactions: not configured (set discord.public_key)", http.StatusNotFound)
		return
	}
	body, err := webhook.ReadBody(w, r, maxInteractionBody)
	if err != nil {
		http.Error(w, "discord interactions: "+err.Error(), webhook.Status(err))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !discordgo.VerifyInteraction(r, c.publicKey) {
		c.refusals.Warn("signature", "refused an interaction request with a bad signature", "remote", r.RemoteAddr)
		http.Error(w, "discord interactions: invalid request signature", http.StatusUnauthorized)
		return
	}
	if !c.freshTimestamp(r.Header.Get("X-Signature-Timestamp")) {
		c.refusals.Warn("timestamp", "refused an interaction request with a stale timestamp", "remote", r.RemoteAddr)
		http.Error(w, "discord interactions: request timestamp is too old", http.StatusUnauthorized)
		return
	}
	var in discordgo.Interaction
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "discord interactions: body is not an interaction: "+err.Error(), http.StatusBadRequest)
		return
	}
	// The work outlives this request when the broker is slow: the
	// response is then a deferred acknowledgement and the real one
	// follows through the interaction's webhook.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), handleTimeout)
	resp, finish := c.respondInTime(ctx, &in)
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(resp); err != nil {
		c.log.Warn("writing an interaction response failed", "err", err)
	}
	if finish == nil {
		cancel()
		return
	}
	c.late.Add(1)
	go func() {
		defer c.late.Done()
		defer cancel()
		finish()
	}()
}

// freshTimestamp reports whether ts (Unix seconds) is within
// maxSignatureAge of now, so that a captured request cannot be replayed
// later.
func (c *Channel) freshTimestamp(ts string) bool {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	age := c.now().Sub(time.Unix(sec, 0))
	return age <= c.maxSignatureAge && age >= -c.maxSignatureAge
}
