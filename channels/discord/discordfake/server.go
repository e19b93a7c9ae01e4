package discordfake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// discordEpoch is the first millisecond of 2015, the epoch of snowflakes.
const discordEpoch = 1420070400000

// Server is a fake Discord. Create it with New and Close it when done.
type Server struct {
	// Token is the bot token the fake accepts (without "Bot ").
	Token string
	// AppID is the application id; BotUser is the bot's user.
	AppID   string
	BotUser User

	srv *httptest.Server

	mu           sync.Mutex
	counter      uint64
	channels     map[string]*fakeChannel
	users        map[string]User
	dms          map[string]string // user id → DM channel id
	closedDMs    map[string]bool
	messages     map[string]*Message
	order        []string
	requests     []Request
	interactions map[string]*interaction
	commands     map[string]json.RawMessage // scope ("global" or guild id) → last overwrite
	rateLimits   []rateLimit
	conns        []*gatewayConn
	identifies   []json.RawMessage
	resumes      int
	seq          int64
	nonces       nonceState

	// cdn holds attached files by CDN path; downloads are the fetches
	// (files.go).
	cdn       map[string]cdnFile
	downloads []string
	// uploads are the settings for messages created with files (upload.go).
	uploads uploadState
}

type fakeChannel struct {
	guildID string
	// dmWith is the person of a DM channel.
	dmWith string
	// deny is a JSON error code refusing every write (50001, 50013), or 0.
	deny int
}

type rateLimit struct {
	retryAfter float64
	global     bool
}

type interaction struct {
	token     string
	messageID string
	responded bool
	response  Response
	// original is the edit of a deferred reply; followups are the
	// follow-up messages sent through the interaction's webhook.
	original  *Response
	followups []Response
}

// New starts a fake Discord with a bot user, an application and a token.
func New() *Server {
	s := &Server{
		Token: "fake-bot-token-" + randomHex(12), channels: map[string]*fakeChannel{},
		users: map[string]User{}, dms: map[string]string{}, closedDMs: map[string]bool{},
		messages: map[string]*Message{}, interactions: map[string]*interaction{},
		commands: map[string]json.RawMessage{},
	}
	s.AppID = s.snowflake()
	s.BotUser = User{ID: s.AppID, Username: "askbridge", Bot: true}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v9/gateway", s.rest(s.gateway))
	mux.HandleFunc("POST /api/v9/channels/{channel}/messages", s.rest(s.createMessage))
	mux.HandleFunc("PATCH /api/v9/channels/{channel}/messages/{message}", s.rest(s.editMessage))
	mux.HandleFunc("POST /api/v9/interactions/{id}/{token}/callback", s.rest(s.callback))
	mux.HandleFunc("POST /api/v9/users/@me/channels", s.rest(s.openDM))
	mux.HandleFunc("PUT /api/v9/applications/{app}/commands", s.rest(s.overwriteCommands))
	mux.HandleFunc("PUT /api/v9/applications/{app}/guilds/{guild}/commands", s.rest(s.overwriteCommands))
	mux.HandleFunc("PATCH /api/v9/webhooks/{app}/{token}/messages/{message}", s.rest(s.editOriginal))
	mux.HandleFunc("POST /api/v9/webhooks/{app}/{token}", s.rest(s.followUp))
	mux.HandleFunc("GET /attachments/{channel}/{id}/{name}", s.serveAttachment)
	mux.HandleFunc("GET /gateway", s.serveGateway)
	mux.HandleFunc("GET /gateway/", s.serveGateway)
	mux.HandleFunc("/", s.rest(func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeError(w, http.StatusNotFound, "404: Not Found", 0)
	}))
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the fake's base URL, for the channel's api_url.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server and drops every gateway connection.
func (s *Server) Close() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// AddChannel makes a text channel known; guildID "" makes it a direct
// message channel.
func (s *Server) AddChannel(guildID string) string {
	id := s.snowflake()
	s.mu.Lock()
	s.channels[id] = &fakeChannel{guildID: guildID}
	s.mu.Unlock()
	return id
}

// NewGuild returns a fresh guild id.
func (s *Server) NewGuild() string { return s.snowflake() }

// NewUser returns a person with the given roles.
func (s *Server) NewUser(name string, roles ...string) User {
	u := User{ID: s.snowflake(), Username: name, Roles: roles}
	s.mu.Lock()
	s.users[u.ID] = u
	s.mu.Unlock()
	return u
}

// CloseDMs makes the person refuse direct messages from the bot (their
// privacy setting): sending fails with 50007.
func (s *Server) CloseDMs(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closedDMs[userID] = true
}

// DM returns the channel id of the bot's DM with a person, opening it.
func (s *Server) DM(userID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dmLocked(userID)
}

func (s *Server) dmLocked(userID string) string {
	if id, ok := s.dms[userID]; ok {
		return id
	}
	id := s.snowflakeLocked()
	s.channels[id] = &fakeChannel{dmWith: userID}
	s.dms[userID] = id
	return id
}

// Deny makes every write to channel fail with a JSON error code:
// 50001 (Missing Access) or 50013 (Missing Permissions).
func (s *Server) Deny(channel string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.channels[channel]; ok {
		c.deny = code
	}
}

// RateLimitNext answers the next n REST requests with 429 and the given
// retry_after in seconds.
func (s *Server) RateLimitNext(n int, retryAfter float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.rateLimits = append(s.rateLimits, rateLimit{retryAfter: retryAfter})
	}
}

// Message returns a copy of a message, or nil.
func (s *Server) Message(id string) *Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.messages[id]; ok {
		c := *m
		return &c
	}
	return nil
}

// Messages returns copies of the messages in a channel, oldest first.
func (s *Server) Messages(channel string) []*Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Message
	for _, id := range s.order {
		if m := s.messages[id]; m.ChannelID == channel {
			c := *m
			out = append(out, &c)
		}
	}
	return out
}

// Requests returns every REST request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Commands returns the last application command overwrite for a scope:
// a guild id, or "" for global commands; nil when none.
func (s *Server) Commands(guild string) json.RawMessage {
	if guild == "" {
		guild = "global"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commands[guild]
}

// Response returns the bot's response to an interaction, once it came.
func (s *Server) Response(id string) (Response, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.interactions[id]
	if !ok || !in.responded {
		return Response{}, false
	}
	return in.response, true
}

// WaitResponse waits for the bot's response to an interaction.
func (s *Server) WaitResponse(ctx context.Context, id string) (Response, error) {
	var r Response
	err := Until(ctx, func() bool {
		var ok bool
		r, ok = s.Response(id)
		return ok
	})
	if err != nil {
		return Response{}, fmt.Errorf("no response to interaction %s: %w", id, err)
	}
	return r, nil
}

// Until polls cond until it holds or ctx ends.
func Until(ctx context.Context, cond func() bool) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

func (s *Server) snowflake() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snowflakeLocked()
}

func (s *Server) snowflakeLocked() string {
	s.counter++
	ms := uint64(time.Now().UnixMilli() - discordEpoch)
	return strconv.FormatUint(ms<<22|s.counter&0xfff, 10)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type handler func(w http.ResponseWriter, r *http.Request, body []byte)

// rest records the request, checks the token and applies injected rate
// limits before h runs.
func (s *Server) rest(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization") == "Bot "+s.Token
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body, Auth: auth, At: time.Now()})
		var rl *rateLimit
		if len(s.rateLimits) > 0 {
			rl = &s.rateLimits[0]
			s.rateLimits = s.rateLimits[1:]
		}
		s.mu.Unlock()
		// Interaction callbacks and webhooks authenticate by their token
		// in the path; the gateway URL is public.
		open := strings.HasPrefix(r.URL.Path, "/api/v9/interactions/") || strings.HasPrefix(r.URL.Path, "/api/v9/webhooks/") ||
			r.URL.Path == "/api/v9/gateway"
		if !auth && !open {
			writeError(w, http.StatusUnauthorized, "401: Unauthorized", 0)
			return
		}
		if rl != nil {
			writeRateLimit(w, *rl)
			return
		}
		h(w, r, body)
	}
}

// writeRateLimit answers 429 the way Discord does: the JSON body with
// retry_after in seconds and the rate-limit headers.
func writeRateLimit(w http.ResponseWriter, rl rateLimit) {
	after := strconv.FormatFloat(rl.retryAfter, 'f', 3, 64)
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(rl.retryAfter))))
	h.Set("X-RateLimit-Limit", "5")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(time.Now().UnixMilli())/1000+rl.retryAfter, 'f', 3, 64))
	h.Set("X-RateLimit-Reset-After", after)
	h.Set("X-RateLimit-Bucket", "80c17d2f203122d936070c88c8d10f33")
	h.Set("X-RateLimit-Scope", "user")
	if rl.global {
		h.Set("X-RateLimit-Global", "true")
	}
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"message": "You are being rate limited.", "retry_after": rl.retryAfter, "global": rl.global,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string, code int) {
	writeJSON(w, status, map[string]any{"message": msg, "code": code})
}

func (s *Server) gateway(w http.ResponseWriter, r *http.Request, _ []byte) {
	writeJSON(w, http.StatusOK, map[string]string{"url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/gateway"})
}
