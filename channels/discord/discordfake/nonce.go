package discordfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Nonces and lost answers.
//
// A message may be created with a nonce (an integer or a string of at
// most 25 characters). With enforce_nonce set, Discord checks the nonce
// against the messages the same author created in the past few minutes:
// when one carries it, that message is returned and no new one is
// created. The fake does the same, within NonceWindow, and can lose the
// answer of a message it created (the connection closes before the
// answer is written), which is what a bot sees when the network or its
// own process fails at that moment.

// NonceWindow is how long the fake remembers a nonce for enforce_nonce.
const NonceWindow = 5 * time.Minute

// maxNonce is the longest nonce Discord accepts.
const maxNonce = 25

// nonceState is the fake's part for nonces and lost answers.
type nonceState struct {
	// seen maps author and nonce to the message created with them.
	seen map[nonceKey]nonceEntry
	// lose counts the answers of message creations still to lose.
	lose int
}

type nonceKey struct{ author, nonce string }

type nonceEntry struct {
	id string
	at time.Time
}

// nonceBody is the part of a message creation about its nonce.
type nonceBody struct {
	Nonce        json.RawMessage `json:"nonce"`
	EnforceNonce bool            `json:"enforce_nonce"`
}

// nonce returns the request's nonce as text ("" when absent), or an error
// Discord would answer with Invalid Form Body.
func (b nonceBody) nonce() (string, error) {
	if len(b.Nonce) == 0 || string(b.Nonce) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(b.Nonce, &s); err != nil {
		var n json.Number
		if err := json.Unmarshal(b.Nonce, &n); err != nil {
			return "", fmt.Errorf("nonce: must be an integer or a string")
		}
		s = n.String()
	}
	if len(s) > maxNonce {
		return "", fmt.Errorf("nonce: must be %d or fewer in length", maxNonce)
	}
	return s, nil
}

// LoseAnswers makes the next n message creations be carried out and then
// answered by closing the connection, so the bot never learns the
// outcome.
func (s *Server) LoseAnswers(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nonces.lose = n
}

// earlierMessage returns the message author created with nonce within
// NonceWindow, if any; s.mu is held.
func (s *Server) earlierMessage(author, nonce string, now time.Time) (*Message, bool) {
	e, ok := s.nonces.seen[nonceKey{author, nonce}]
	if !ok || now.Sub(e.at) > NonceWindow {
		return nil, false
	}
	m, ok := s.messages[e.id]
	return m, ok
}

// rememberNonce records that author created message id with nonce; s.mu
// is held.
func (s *Server) rememberNonce(author, nonce, id string, now time.Time) {
	if nonce == "" {
		return
	}
	if s.nonces.seen == nil {
		s.nonces.seen = map[nonceKey]nonceEntry{}
	}
	s.nonces.seen[nonceKey{author, nonce}] = nonceEntry{id: id, at: now}
}

// loseAnswer reports whether the answer of this message creation is to
// be lost, counting it; s.mu is held.
func (s *Server) loseAnswer() bool {
	if s.nonces.lose <= 0 {
		return false
	}
	s.nonces.lose--
	return true
}

// hangUp closes the connection of w without an answer.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // the server closes the connection
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
