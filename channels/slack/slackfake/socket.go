package slackfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// PingInterval is how often the fake pings Socket Mode clients.
const PingInterval = 500 * time.Millisecond

type socketState struct {
	mu        sync.Mutex
	conn      *websocket.Conn
	wmu       sync.Mutex // serialises writes to conn
	connected chan struct{}
	acks      map[string]json.RawMessage
	ackCh     chan struct{}
	seq       int
	all       []*websocket.Conn
	changed   chan struct{} // closed at each new connection
}

func (st *socketState) init() {
	st.connected = make(chan struct{})
	st.changed = make(chan struct{})
	st.acks = map[string]json.RawMessage{}
	st.ackCh = make(chan struct{})
}

func (st *socketState) closeAll() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, c := range st.all {
		_ = c.Close()
	}
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("ticket") == "" {
		http.Error(w, "no ticket", http.StatusUnauthorized)
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	st := &s.sock
	hello := map[string]any{
		"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "applink-fake", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID},
	}
	st.wmu.Lock()
	err = conn.WriteJSON(hello)
	st.wmu.Unlock()
	if err != nil {
		_ = conn.Close()
		return
	}
	st.mu.Lock()
	st.conn = conn
	st.all = append(st.all, conn)
	select {
	case <-st.connected:
	default:
		close(st.connected)
	}
	close(st.changed)
	st.changed = make(chan struct{})
	st.mu.Unlock()

	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(PingInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if conn.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(time.Second)) != nil {
					return
				}
			}
		}
	}()
	for {
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := conn.ReadJSON(&ack); err != nil {
			st.mu.Lock()
			if st.conn == conn {
				st.conn = nil
			}
			st.mu.Unlock()
			return
		}
		st.mu.Lock()
		st.acks[ack.EnvelopeID] = ack.Payload
		close(st.ackCh)
		st.ackCh = make(chan struct{})
		st.mu.Unlock()
	}
}

// WaitConnected waits until a Socket Mode client has connected.
func (s *Server) WaitConnected(ctx context.Context) error {
	select {
	case <-s.sock.connected:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("slackfake: no socket mode connection: %w", ctx.Err())
	}
}

// Send pushes one Socket Mode envelope of type typ ("interactive",
// "slash_commands", "events_api") carrying payload, and returns its
// envelope id.
func (s *Server) Send(typ string, payload any) (string, error) {
	st := &s.sock
	st.mu.Lock()
	conn := st.conn
	st.seq++
	id := fmt.Sprintf("env-%04d-fake", st.seq)
	st.mu.Unlock()
	if conn == nil {
		return "", errors.New("slackfake: no socket mode connection")
	}
	// Slack accepts a response payload in the ack of slash commands and
	// view submissions (a modal's response_action), not of other actions.
	accepts := typ == "slash_commands"
	if p, ok := payload.(map[string]any); ok && typ == "interactive" && p["type"] == "view_submission" {
		accepts = true
	}
	env := map[string]any{
		"envelope_id": id, "type": typ, "payload": payload,
		"accepts_response_payload": accepts,
	}
	if typ == "events_api" {
		env["retry_attempt"] = 0
		env["retry_reason"] = ""
	}
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if err := conn.WriteJSON(env); err != nil {
		return "", fmt.Errorf("slackfake: send envelope: %w", err)
	}
	return id, nil
}

// WaitAck waits for the ack of envelope id and returns its payload (null
// when the ack carried none).
func (s *Server) WaitAck(ctx context.Context, id string) (json.RawMessage, error) {
	st := &s.sock
	for {
		st.mu.Lock()
		p, ok := st.acks[id]
		ch := st.ackCh
		st.mu.Unlock()
		if ok {
			return p, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("slackfake: no ack for %s: %w", id, ctx.Err())
		}
	}
}

// Connections returns how many Socket Mode connections were opened.
func (s *Server) Connections() int {
	s.sock.mu.Lock()
	defer s.sock.mu.Unlock()
	return len(s.sock.all)
}

// WaitConnections waits until n connections were opened in all.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	st := &s.sock
	for {
		st.mu.Lock()
		got, ch := len(st.all), st.changed
		st.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("slackfake: %d of %d connections: %w", got, n, ctx.Err())
		}
	}
}

// Disconnect asks the connected client to reconnect, as Slack does before
// it recycles a connection.
func (s *Server) Disconnect() error {
	st := &s.sock
	st.mu.Lock()
	conn := st.conn
	st.mu.Unlock()
	if conn == nil {
		return errors.New("slackfake: no socket mode connection")
	}
	st.wmu.Lock()
	defer st.wmu.Unlock()
	return conn.WriteJSON(map[string]any{"type": "disconnect", "reason": "refresh_requested",
		"debug_info": map[string]any{"host": "applink-fake"}})
}
