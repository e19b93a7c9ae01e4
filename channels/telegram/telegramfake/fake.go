package telegramfake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// User is a Telegram user in the JSON form of the Bot API.
type User struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

// Chat is a Telegram chat in the JSON form of the Bot API.
type Chat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
}

// Button is an inline keyboard button as the bot sent it.
type Button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

// Message is a message as a Telegram client shows it.
type Message struct {
	ChatID int64
	ID     int
	From   User
	// Text is what a person reads (HTML parsed); HTML is the text as the
	// bot sent it.
	Text      string
	HTML      string
	ParseMode string
	Entities  []Entity
	// Keyboard is the inline keyboard under the message; nil when none.
	Keyboard [][]Button
	// ForceReply is set when the message asked the client to reply.
	ForceReply bool
	ReplyTo    int
	Date       int64
	// Edits counts the edits of the message.
	Edits int
	// Document is the file the bot sent (sendDocument), with Caption;
	// nil for a text message (documents.go).
	Document *Document
	Caption  string
}

// Call is one request a bot made.
type Call struct {
	Method string
	Params url.Values
	// At is when the call arrived.
	At time.Time
}

// Failure is an error the server answers with instead of handling a call.
type Failure struct {
	Code        int
	Description string
	RetryAfter  int
}

// TooManyRequests is Telegram's flood-control answer.
func TooManyRequests(retryAfter int) Failure {
	return Failure{Code: 429, Description: "Too Many Requests: retry after " + itoa(int64(retryAfter)), RetryAfter: retryAfter}
}

// CallbackAnswer is how the bot answered a callback query.
type CallbackAnswer struct {
	Text      string
	ShowAlert bool
	Answered  bool
}

type msgKey struct {
	chat int64
	id   int
}

type queued struct {
	id   int
	body []byte
}

// Server is a fake Telegram Bot API. Create it with New; it serves until
// Close.
type Server struct {
	srv   *httptest.Server
	token string
	bot   User

	mu          sync.Mutex
	changed     chan struct{}
	chats       map[int64]*Chat
	blocked     map[int64]bool
	msgs        map[msgKey]*Message
	nextMsg     map[int64]int
	calls       []Call
	updates     []queued
	nextUpdate  int
	failures    map[string][]Failure
	holds       map[string][]*heldCall
	callbacks   map[string]*CallbackAnswer
	nextCB      int
	webhookURL  string
	secret      string
	hookStatus  []int
	pollGen     int
	hookClient  *http.Client
	webhookWait sync.WaitGroup
	// files are the files people sent, by file_id (files.go).
	files map[string]*storedFile

	// replyFailures are failures for calls that reply to a message
	// (documents.go).
	replyFailures map[string][]Failure
}

// New starts a fake Bot API for the bot token, whose bot is bot.
func New(token string, bot User) *Server {
	bot.IsBot = true
	s := &Server{
		token: token, bot: bot,
		changed:    make(chan struct{}),
		chats:      map[int64]*Chat{},
		blocked:    map[int64]bool{},
		msgs:       map[msgKey]*Message{},
		nextMsg:    map[int64]int{},
		failures:   map[string][]Failure{},
		holds:      map[string][]*heldCall{},
		callbacks:  map[string]*CallbackAnswer{},
		nextUpdate: 100000,
		hookClient: &http.Client{Timeout: 10 * time.Second},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's base URL, for the bot's api_url.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() {
	s.webhookWait.Wait()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// AddChat makes a chat known; the bot can only send to known chats.
func (s *Server) AddChat(c Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cc := c
	s.chats[c.ID] = &cc
}

// Block makes sends to the chat fail as when the user blocked the bot.
func (s *Server) Block(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked[chatID] = true
}

// FailNext makes the next call of method answer with f instead.
func (s *Server) FailNext(method string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[method] = append(s.failures[method], f)
}

// heldCall is a call HoldNext keeps waiting.
type heldCall struct {
	release, done chan struct{}
	taken         bool // a call came and waits on it (guarded by mu)
}

// HoldNext makes the next call of method wait, recorded (Calls lists
// it) but not yet carried out, until release is called: a request the
// platform is slow to apply, for ordering tests. release returns once the
// call was carried out and answered (or its client gave up); when no such
// call came yet, it drops the hold instead. It is safe to call twice.
func (s *Server) HoldNext(method string) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &heldCall{release: make(chan struct{}), done: make(chan struct{})}
	s.holds[method] = append(s.holds[method], h)
	var once sync.Once
	return func() {
		once.Do(func() { close(h.release) })
		s.mu.Lock()
		taken := h.taken
		if !taken {
			s.holds[method] = slices.DeleteFunc(s.holds[method], func(x *heldCall) bool { return x == h })
		}
		s.mu.Unlock()
		if taken {
			<-h.done
		}
	}
}

// Calls returns the calls made to method ("" for all), oldest first.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Message returns the current state of a message.
func (s *Server) Message(chatID int64, id int) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.msgs[msgKey{chatID, id}]
	if !ok {
		return Message{}, false
	}
	return copyMessage(m), true
}

// BotMessages returns the messages the bot sent to a chat, oldest first.
func (s *Server) BotMessages(chatID int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for id := 1; id <= s.nextMsg[chatID]; id++ {
		if m, ok := s.msgs[msgKey{chatID, id}]; ok && m.From.ID == s.bot.ID {
			out = append(out, copyMessage(m))
		}
	}
	return out
}

// Callback returns how the bot answered the callback query id.
func (s *Server) Callback(id string) CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.callbacks[id]; ok {
		return *a
	}
	return CallbackAnswer{}
}

// Webhook returns the webhook URL and secret token set by the bot.
func (s *Server) Webhook() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhookURL, s.secret
}

// WebhookStatuses returns the HTTP statuses the webhook answered with.
func (s *Server) WebhookStatuses() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.hookStatus...)
}

// WaitFor waits until cond holds, re-checking whenever the server's state
// changes, for at most timeout. It reports whether cond held.
func (s *Server) WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return cond()
		}
	}
}

// notify wakes waiters; callers hold s.mu.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func copyMessage(m *Message) Message {
	c := *m
	c.Keyboard = nil
	if m.Keyboard != nil {
		c.Keyboard = make([][]Button, len(m.Keyboard))
		for i, row := range m.Keyboard {
			c.Keyboard[i] = append([]Button(nil), row...)
		}
	}
	c.Entities = append([]Entity(nil), m.Entities...)
	return c
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	if !ok {
		writeError(w, Failure{Code: 404, Description: "Not Found"})
		return
	}
	token, method, ok := strings.Cut(rest, "/")
	if !ok || token != s.token {
		writeError(w, Failure{Code: 401, Description: "Unauthorized"})
		return
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil && err != http.ErrNotMultipart {
		writeError(w, Failure{Code: 400, Description: "Bad Request: " + err.Error()})
		return
	}
	p := r.Form
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: method, Params: p, At: time.Now()})
	if f, ok := s.replyFailure(method, p); ok {
		s.notify()
		s.mu.Unlock()
		writeError(w, f)
		return
	}
	if fs := s.failures[method]; len(fs) > 0 {
		s.failures[method] = fs[1:]
		s.notify()
		s.mu.Unlock()
		writeError(w, fs[0])
		return
	}
	var hold *heldCall
	if hs := s.holds[method]; len(hs) > 0 {
		hold, s.holds[method] = hs[0], hs[1:]
		hold.taken = true
	}
	s.notify()
	s.mu.Unlock()
	if hold != nil {
		defer close(hold.done)
		select {
		case <-hold.release:
		case <-r.Context().Done():
			return
		}
	}

	if method == "getUpdates" {
		s.getUpdates(w, r, p)
		return
	}
	h, ok := s.handlers()[method]
	if !ok {
		h, ok = s.uploadHandler(method, r)
	}
	if !ok {
		writeError(w, Failure{Code: 404, Description: "Not Found: method not found"})
		return
	}
	s.mu.Lock()
	result, f := h(p)
	if f == nil {
		s.notify()
	}
	s.mu.Unlock()
	if f != nil {
		writeError(w, *f)
		return
	}
	writeOK(w, result, "")
}

func writeOK(w http.ResponseWriter, result any, description string) {
	body := map[string]any{"ok": true, "result": result}
	if description != "" {
		body["description"] = description
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func writeError(w http.ResponseWriter, f Failure) {
	body := map[string]any{"ok": false, "error_code": f.Code, "description": f.Description}
	if f.RetryAfter > 0 {
		body["parameters"] = map[string]int{"retry_after": f.RetryAfter}
	}
	w.Header().Set("Content-Type", "application/json")
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", itoa(int64(f.RetryAfter)))
	}
	w.WriteHeader(f.Code)
	_ = json.NewEncoder(w).Encode(body)
}
