package bench

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/askbridge/askbridge/callback"
)

// Receiver is an agent's callback endpoint on loopback: it verifies each
// delivery's signature and counts the accepted deliveries per question.
type Receiver struct {
	URL    string
	secret string
	srv    *http.Server
	ln     net.Listener

	mu       sync.Mutex
	got      map[string]int
	rejected int
}

// StartReceiver listens on a free loopback port.
func StartReceiver(secret string) (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: receiver: %w", err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String() + "/callback", secret: secret, ln: ln, got: map[string]int{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// ServeHTTP accepts a signed delivery.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := callback.Verify(r.secret, req.Header, body, 5*time.Minute, time.Now()); err != nil {
		r.mu.Lock()
		r.rejected++
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	r.mu.Lock()
	r.got[req.Header.Get(callback.HeaderQuestion)]++
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Delivered returns how many accepted deliveries each question had, and
// how many deliveries were refused for a bad signature.
func (r *Receiver) Delivered() (map[string]int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.got))
	for k, v := range r.got {
		out[k] = v
	}
	return out, r.rejected
}

// Close stops the receiver.
func (r *Receiver) Close() { _ = r.srv.Close() }
