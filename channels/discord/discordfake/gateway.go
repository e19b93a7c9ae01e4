package discordfake

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// gatewayConn is one bot connection to the fake gateway.
type gatewayConn struct {
	ws      *websocket.Conn
	writeMu sync.Mutex
	once    sync.Once
}

func (c *gatewayConn) send(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.ws.WriteJSON(v)
}

func (c *gatewayConn) close() {
	c.once.Do(func() {
		c.writeMu.Lock()
		_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""))
		c.writeMu.Unlock()
		_ = c.ws.Close()
	})
}

// frame is a gateway payload.
type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  *string         `json:"t"`
}

// serveGateway speaks the gateway protocol: hello, identify, READY,
// heartbeat acknowledgements; dispatches come from Dispatch.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gatewayConn{ws: ws}
	defer c.close()
	if c.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": 41250, "_trace": []string{"[\"gateway-prd-fake\"]"}}, "s": nil, "t": nil}) != nil {
		return
	}
	var id frame
	if err := ws.ReadJSON(&id); err != nil || (id.Op != 2 && id.Op != 6) {
		return
	}
	var ident struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
	}
	_ = json.Unmarshal(id.D, &ident)
	if id.Op == 6 { // resume after a dropped connection
		if strings.TrimPrefix(ident.Token, "Bot ") != s.Token {
			return
		}
		s.mu.Lock()
		s.seq++
		seq := s.seq
		s.resumes++
		s.mu.Unlock()
		if c.send(map[string]any{"op": 0, "t": "RESUMED", "s": seq, "d": map[string]any{}}) != nil {
			return
		}
		s.serveConn(c)
		return
	}
	if strings.TrimPrefix(ident.Token, "Bot ") != s.Token {
		c.writeMu.Lock()
		_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4004, "Authentication failed."))
		c.writeMu.Unlock()
		return
	}
	s.mu.Lock()
	s.identifies = append(s.identifies, id.D)
	var guilds []map[string]any
	seenGuild := map[string]bool{}
	for _, ch := range s.channels {
		if ch.guildID != "" && !seenGuild[ch.guildID] {
			seenGuild[ch.guildID] = true
			guilds = append(guilds, map[string]any{"id": ch.guildID, "unavailable": true})
		}
	}
	if guilds == nil {
		guilds = []map[string]any{}
	}
	s.seq++
	seq := s.seq
	sessionID := randomHex(16)
	s.mu.Unlock()
	ready := map[string]any{
		"v": 10, "user": s.BotUser.json(), "guilds": guilds, "session_id": sessionID,
		"resume_gateway_url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/gateway",
		"shard":              []int{0, 1}, "application": map[string]any{"id": s.AppID, "flags": 565248},
		"private_channels": []any{}, "relationships": []any{}, "presences": []any{},
		"guild_join_requests": []any{}, "geo_ordered_rtc_regions": []string{"fake"},
		"user_settings": map[string]any{}, "session_type": "normal", "auth_session_id_hash": randomHex(8),
	}
	if c.send(map[string]any{"op": 0, "t": "READY", "s": seq, "d": ready}) != nil {
		return
	}
	s.serveConn(c)
}

// serveConn keeps an identified connection: it acknowledges heartbeats
// until the bot or the test closes it.
func (s *Server) serveConn(c *gatewayConn) {
	ws := c.ws
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	defer s.dropConn(c)
	for {
		var f frame
		if err := ws.ReadJSON(&f); err != nil {
			return
		}
		switch f.Op {
		case 1: // heartbeat
			if c.send(map[string]any{"op": 11, "d": nil, "s": nil, "t": nil}) != nil {
				return
			}
		}
	}
}

func (s *Server) dropConn(c *gatewayConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.conns {
		if x == c {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			return
		}
	}
}

// Connected returns how many bots are connected to the gateway (past
// identify and READY).
func (s *Server) Connected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// WaitConnected waits until a bot is connected to the gateway.
func (s *Server) WaitConnected(ctx context.Context) error {
	return Until(ctx, func() bool { return s.Connected() > 0 })
}

// Identifies returns the identify payloads received (op 2 "d").
func (s *Server) Identifies() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.identifies...)
}

// Dispatch sends an event (op 0) to every connected bot.
func (s *Server) Dispatch(event string, d any) {
	s.mu.Lock()
	s.seq++
	seq := s.seq
	conns := append([]*gatewayConn(nil), s.conns...)
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.send(map[string]any{"op": 0, "t": event, "s": seq, "d": d})
	}
}

// DropConnections closes every gateway connection, as Discord does now
// and then; bots are expected to reconnect and resume.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Resumes returns how many times a bot resumed its session (op 6).
func (s *Server) Resumes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumes
}
