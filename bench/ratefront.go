package bench

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Platform styles of a rateFront's answers.
const (
	styleTelegram = "telegram"
	styleSlack    = "slack"
)

// rateFront stands between a bot and its fake platform and plays the
// platform's flood control: at most limit message calls (posts and edits)
// per chat in any second, beyond which it answers 429 the platform's way
// (Telegram: a JSON error with parameters.retry_after; Slack: HTTP 429
// with a Retry-After header). It records when each call it let through
// arrived, per chat, and can slow every message call down by delay.
type rateFront struct {
	srv     *httptest.Server
	style   string
	limit   int           // per chat per second; 0: no limit
	delay   time.Duration // added to every message call
	mu      sync.Mutex
	passed  map[string][]time.Time // per chat, in arrival order
	posts   map[string]int         // message posts let through, per chat
	says429 int
}

// messageCalls are the calls a rateFront counts, by style, with the form
// field naming the chat and whether the call posts a new message.
var messageCalls = map[string]map[string]bool{
	styleTelegram: {"sendMessage": true, "editMessageText": false, "editMessageReplyMarkup": false},
	styleSlack:    {"chat.postMessage": true, "chat.update": false},
}

func newRateFront(target, style string, limit int, delay time.Duration) (*rateFront, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	f := &rateFront{style: style, limit: limit, delay: delay, passed: map[string][]time.Time{}, posts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := lastSegment(r.URL.Path)
		post, counted := messageCalls[style][method]
		if !counted {
			rp.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		chat := chatOf(style, r, body)
		if f.delay > 0 {
			select {
			case <-time.After(f.delay):
			case <-r.Context().Done():
				return
			}
		}
		if wait, ok := f.admit(chat, post, time.Now()); !ok {
			f.refuse(w, wait)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	return f, nil
}

// admit records a call to chat at now, or refuses it with how long until
// the chat has room again.
func (f *rateFront) admit(chat string, post bool, now time.Time) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := f.passed[chat]
	if f.limit > 0 {
		// The calls of the last second: (now-1s, now].
		i, _ := slices.BinarySearchFunc(ts, now.Add(-time.Second), func(t, edge time.Time) int {
			if t.After(edge) {
				return 1
			}
			return -1
		})
		if len(ts)-i >= f.limit {
			f.says429++
			return ts[i].Add(time.Second).Sub(now), false
		}
	}
	f.passed[chat] = append(ts, now)
	if post {
		f.posts[chat]++
	}
	return 0, true
}

// refuse answers the platform's 429; retry_after is whole seconds, at
// least one.
func (f *rateFront) refuse(w http.ResponseWriter, wait time.Duration) {
	secs := strconv.Itoa(max(1, int((wait+time.Second-1)/time.Second)))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", secs)
	w.WriteHeader(http.StatusTooManyRequests)
	if f.style == styleTelegram {
		_, _ = io.WriteString(w, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after `+secs+`","parameters":{"retry_after":`+secs+`}}`)
		return
	}
	_, _ = io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
}

// busiestSecond is the most calls let through to one chat within any one
// second.
func (f *rateFront) busiestSecond() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	most := 0
	for _, ts := range f.passed {
		lo := 0
		for hi := range ts {
			for ts[hi].Sub(ts[lo]) >= time.Second {
				lo++
			}
			most = max(most, hi-lo+1)
		}
	}
	return most
}

// refused counts the 429s answered.
func (f *rateFront) refused() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.says429
}

// URL is the front's base URL.
func (f *rateFront) URL() string { return f.srv.URL }

func (f *rateFront) Close() {
	f.srv.CloseClientConnections()
	f.srv.Close()
}

func lastSegment(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// chatOf reads the chat a message call names: Telegram's chat_id, Slack's
// channel, from a form or multipart body.
func chatOf(style string, r *http.Request, body []byte) string {
	key := "chat_id"
	if style == styleSlack {
		key = "channel"
	}
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	if err := c.ParseMultipartForm(1 << 20); err != nil && err != http.ErrNotMultipart {
		return ""
	}
	return c.Form.Get(key)
}
