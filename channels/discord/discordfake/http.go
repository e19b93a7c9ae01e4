package discordfake

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Sign returns the X-Signature-Ed25519 value Discord sends: the hex
// Ed25519 signature of timestamp followed by the body.
func Sign(priv ed25519.PrivateKey, timestamp string, body []byte) string {
	return hex.EncodeToString(ed25519.Sign(priv, append([]byte(timestamp), body...)))
}

// Delivery is the outcome of posting an interaction to a bot's HTTP
// endpoint.
type Delivery struct {
	Status   int
	Body     []byte
	Response Response
}

// Deliver posts an interaction to the bot's interactions endpoint the way
// Discord does, signed with priv at time at. When the bot answers 200, its
// response is applied like a callback (a type 7 edits the message).
func (s *Server) Deliver(ctx context.Context, endpoint string, priv ed25519.PrivateKey, at time.Time, body []byte) (Delivery, error) {
	ts := strconv.FormatInt(at.Unix(), 10)
	return s.DeliverSigned(ctx, endpoint, ts, Sign(priv, ts, body), body)
}

// DeliverSigned posts an interaction with the given signature headers, for
// tests of forged requests.
func (s *Server) DeliverSigned(ctx context.Context, endpoint, timestamp, signature string, body []byte) (Delivery, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return Delivery{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	req.Header.Set("X-Signature-Ed25519", signature)
	req.Header.Set("X-Signature-Timestamp", timestamp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Delivery{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return Delivery{}, err
	}
	d := Delivery{Status: resp.StatusCode, Body: out}
	if resp.StatusCode != http.StatusOK {
		return d, nil
	}
	var in struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return d, fmt.Errorf("interaction body: %w", err)
	}
	if d.Response, err = ParseResponse(out); err != nil {
		return d, fmt.Errorf("bot response is not JSON: %w (%s)", err, out)
	}
	if status, msg, _ := s.respond(in.ID, in.Token, out); status != http.StatusNoContent {
		return d, fmt.Errorf("bot response refused by Discord: %d %s", status, msg)
	}
	return d, nil
}
