package slackfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tokens the fake accepts.
const (
	BotToken = "xoxb-fake-bot-token"
	AppToken = "xapp-fake-app-token"
	// BotUserID and BotID identify the app's bot user.
	BotUserID = "UBOT0001"
	BotID     = "BBOT0001"
	TeamID    = "TFAKE001"
	AppID     = "AFAKE001"
)

// DMChannel is the id of the DM between the bot and user.
func DMChannel(user string) string { return "D" + user[1:] }

// Message is a message the app posted, as it stands now.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string
	Text     string
	// Blocks is the blocks JSON array as the app sent it.
	Blocks json.RawMessage
	// Updates counts chat.update calls on the message.
	Updates int
	// Metadata is the message metadata JSON as the app sent it, or nil
	// (metadata.go).
	Metadata json.RawMessage
	// PostedAt is when chat.postMessage posted it.
	PostedAt time.Time
	// Plain is set when the message was posted with mrkdwn=false: its
	// text is shown as written, without formatting.
	Plain bool
}

// Ephemeral is a chat.postEphemeral call.
type Ephemeral struct {
	Channel, User, ThreadTS, Text string
}

// OpenedView is a views.open call.
type OpenedView struct {
	TriggerID string
	View      json.RawMessage
}

// HookPost is a message posted to a response_url.
type HookPost struct {
	Path         string
	Text         string
	ResponseType string
}

// User is a person in the fake workspace.
type User struct {
	ID   string
	Name string
}

// Server is a fake Slack. Create it with New.
type Server struct {
	// URL is the Web API base, e.g. http://127.0.0.1:port/api.
	URL string

	srv *httptest.Server

	mu         sync.Mutex
	tsSeq      int
	messages   []*Message
	ephemerals []Ephemeral
	views      []OpenedView
	calls      map[string]int
	callTimes  map[string][]time.Time
	failChan   map[string]string
	failMethod map[string]string
	limited    map[string]int
	retryAfter int
	users      map[string]User
	hooks      []HookPost
	changed    chan struct{}
	// files are the files people shared, by path (files.go).
	files     map[string][]byte
	downloads []string

	sock   socketState
	meta   metaState
	thread threadState
}

// New starts a fake Slack; it stops when the test ends.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// AddUser adds a person that users.info knows.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[u.ID] = u
}

// FailChannel makes every call naming channel answer {"ok":false,"error":code}.
func (s *Server) FailChannel(channel, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failChan[channel] = code
}

// FailMethod makes every call of method answer {"ok":false,"error":code}
// ("" stops it).
func (s *Server) FailMethod(method, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failMethod[method] = code
}

// RateLimit makes the next n calls of method answer 429 with the header
// Retry-After: retryAfter (seconds).
func (s *Server) RateLimit(method string, n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited[method] = n
	s.retryAfter = retryAfter
}

// Calls returns how many times method was called (429s included).
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// CallTimes returns when each call of method arrived (429s included),
// oldest first.
func (s *Server) CallTimes(method string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.callTimes[method])
}

// Messages returns copies of the posted messages, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[i] = *m
	}
	return out
}

// Message returns the message at channel and ts as it stands.
func (s *Server) Message(channel, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.find(channel, ts); m != nil {
		return *m, true
	}
	return Message{}, false
}

// Ephemerals returns the ephemeral messages sent so far.
func (s *Server) Ephemerals() []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ephemeral(nil), s.ephemerals...)
}

// Views returns the modals opened so far.
func (s *Server) Views() []OpenedView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]OpenedView(nil), s.views...)
}

// Changed returns a channel closed at the next change of the fake's state
// (a post, an update, an ephemeral, a view, an ack), for polling helpers.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// notify must be called with s.mu held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) find(channel, ts string) *Message {
	for _, m := range s.messages {
		if m.Channel == channel && m.TS == ts {
			return m
		}
	}
	return nil
}

func (s *Server) nextTS() string {
	s.tsSeq++
	return fmt.Sprintf("1700000000.%06d", s.tsSeq)
}

// apiResult is one Web API answer.
type apiResult map[string]any

func fail(code string) apiResult { return apiResult{"ok": false, "error": code} }

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(r.Body)
	form, jsonBody := url.Values{}, map[string]json.RawMessage{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(body, &jsonBody)
	} else {
		form, _ = url.ParseQuery(string(body))
	}
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" {
		token = form.Get("token")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[method]++
	s.callTimes[method] = append(s.callTimes[method], time.Now())
	if n := s.limited[method]; n > 0 {
		s.limited[method] = n - 1
		w.Header().Set("Retry-After", strconv.Itoa(s.retryAfter))
		writeJSON(w, http.StatusTooManyRequests, fail("ratelimited"))
		return
	}
	want := BotToken
	if method == "apps.connections.open" {
		want = AppToken
	}
	if token != want {
		writeJSON(w, http.StatusOK, fail("invalid_auth"))
		return
	}
	if code := s.failMethod[method]; code != "" {
		writeJSON(w, http.StatusOK, fail(code))
		return
	}
	if code := s.failChan[form.Get("channel")]; code != "" {
		writeJSON(w, http.StatusOK, fail(code))
		return
	}
	if status, code, ok := s.threadFailure(method, form); ok {
		writeJSON(w, status, fail(code))
		return
	}
	res := s.call(r, method, form, jsonBody)
	if s.loseAnswer(method) {
		hangUp(w)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// call answers one authorised Web API call; s.mu is held.
func (s *Server) call(r *http.Request, method string, form url.Values, js map[string]json.RawMessage) apiResult {
	switch method {
	case "auth.test":
		return apiResult{"ok": true, "url": "https://fake.slack.com/", "team": "Fake", "user": "askbridge",
			"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID}
	case "apps.connections.open":
		return apiResult{"ok": true, "url": "ws://" + r.Host + "/link/?ticket=fake-ticket&app_id=" + AppID}
	case "users.info":
		u, ok := s.users[form.Get("user")]
		if !ok {
			return fail("user_not_found")
		}
		return apiResult{"ok": true, "user": map[string]any{
			"id": u.ID, "team_id": TeamID, "name": u.Name, "real_name": u.Name,
			"profile": map[string]any{"display_name": u.Name, "real_name": u.Name},
		}}
	case "chat.postMessage":
		return s.postMessage(form)
	case "conversations.history":
		return s.history(form)
	case "conversations.open":
		return s.openConversation(form)
	case "chat.update":
		m := s.find(form.Get("channel"), form.Get("ts"))
		if m == nil {
			return fail("message_not_found")
		}
		m.Text, m.Blocks = form.Get("text"), json.RawMessage(form.Get("blocks"))
		m.Updates++
		s.notify()
		return apiResult{"ok": true, "channel": m.Channel, "ts": m.TS, "text": m.Text,
			"message": map[string]any{"type": "message", "text": m.Text, "user": BotUserID, "bot_id": BotID}}
	case "chat.postEphemeral":
		if form.Get("user") == "" {
			return fail("user_not_found")
		}
		s.ephemerals = append(s.ephemerals, Ephemeral{Channel: form.Get("channel"), User: form.Get("user"),
			ThreadTS: form.Get("thread_ts"), Text: form.Get("text")})
		s.notify()
		return apiResult{"ok": true, "message_ts": s.nextTS()}
	case "views.open":
		var trigger string
		_ = json.Unmarshal(js["trigger_id"], &trigger)
		if trigger == "" {
			return fail("invalid_trigger_id")
		}
		s.views = append(s.views, OpenedView{TriggerID: trigger, View: js["view"]})
		s.notify()
		return apiResult{"ok": true, "view": map[string]any{"id": fmt.Sprintf("VFAKE%04d", len(s.views)), "type": "modal",
			"team_id": TeamID, "app_id": AppID, "bot_id": BotID}}
	}
	return fail("unknown_method")
}

func (s *Server) postMessage(form url.Values) apiResult {
	ch := form.Get("channel")
	if ch == "" {
		return fail("channel_not_found")
	}
	if ch[0] == 'U' || ch[0] == 'W' {
		// Posting to a user id posts to the DM with the bot.
		if _, ok := s.users[ch]; !ok {
			return fail("channel_not_found")
		}
		ch = DMChannel(ch)
	}
	if form.Get("text") == "" && form.Get("blocks") == "" {
		return fail("no_text")
	}
	thread := form.Get("thread_ts")
	if thread != "" && s.find(ch, thread) == nil {
		return fail("thread_not_found")
	}
	m := &Message{Channel: ch, TS: s.nextTS(), ThreadTS: thread, Text: form.Get("text"), Blocks: json.RawMessage(form.Get("blocks")),
		Metadata: metadataOf(form), PostedAt: time.Now(), Plain: form.Get("mrkdwn") == "false"}
	s.messages = append(s.messages, m)
	s.notify()
	msg := map[string]any{"type": "message", "text": m.Text, "user": BotUserID, "bot_id": BotID, "ts": m.TS}
	if thread != "" {
		msg["thread_ts"] = thread
	}
	if m.Metadata != nil {
		msg["metadata"] = m.Metadata
	}
	return apiResult{"ok": true, "channel": ch, "ts": m.TS, "message": msg}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// HookURL is a response_url served by the fake, to put in payloads in
// place of https://hooks.slack.com/….
func (s *Server) HookURL() string {
	return s.srv.URL + "/hooks/commands/" + TeamID + "/fake"
}

// HookPosts returns the messages posted to response URLs.
func (s *Server) HookPosts() []HookPost {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]HookPost(nil), s.hooks...)
}

func (s *Server) serveHook(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Text         string `json:"text"`
		ResponseType string `json:"response_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.hooks = append(s.hooks, HookPost{Path: r.URL.Path, Text: msg.Text, ResponseType: msg.ResponseType})
	s.notify()
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, "ok")
}
