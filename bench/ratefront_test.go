package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A rateFront lets limit message calls to one chat through per second and
// answers the next with the platform's own 429; other chats and other
// calls pass.
func TestRateFront(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer backend.Close()
	tests := []struct {
		style, path, chatKey string
		check                func(t *testing.T, resp *http.Response, body string)
	}{
		{styleTelegram, "/botX/sendMessage", "chat_id", func(t *testing.T, resp *http.Response, body string) {
			var e struct {
				ErrorCode  int `json:"error_code"`
				Parameters struct {
					RetryAfter int `json:"retry_after"`
				} `json:"parameters"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.ErrorCode != 429 || e.Parameters.RetryAfter < 1 {
				t.Errorf("Telegram 429 body %q (%v): want error_code 429 and parameters.retry_after", body, err)
			}
		}},
		{styleSlack, "/api/chat.postMessage", "channel", func(t *testing.T, resp *http.Response, body string) {
			if resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `"ratelimited"`) {
				t.Errorf("Slack 429: Retry-After %q, body %q; want the header and ratelimited", resp.Header.Get("Retry-After"), body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.style, func(t *testing.T) {
			f, err := newRateFront(backend.URL, tt.style, 3, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			post := func(path, chat string) (*http.Response, string) {
				resp, err := http.PostForm(f.URL()+path, url.Values{tt.chatKey: {chat}, "text": {"hi"}})
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp, string(b)
			}
			start := time.Now()
			for i := range 3 {
				if resp, body := post(tt.path, "A"); resp.StatusCode != http.StatusOK {
					t.Fatalf("call %d: %d %s, want it through", i+1, resp.StatusCode, body)
				}
			}
			resp, body := post(tt.path, "A")
			if time.Since(start) < time.Second {
				if resp.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("fourth call within a second: %d %s, want 429", resp.StatusCode, body)
				}
				tt.check(t, resp, body)
				if f.refused() != 1 {
					t.Errorf("refused = %d, want 1", f.refused())
				}
			}
			if resp, _ := post(tt.path, "B"); resp.StatusCode != http.StatusOK {
				t.Errorf("another chat: %d, want it through", resp.StatusCode)
			}
			if resp, _ := post("/botX/getUpdates", "A"); resp.StatusCode != http.StatusOK {
				t.Errorf("a call that sends nothing: %d, want it through", resp.StatusCode)
			}
			if got := f.busiestSecond(); got != 3 {
				t.Errorf("busiest second = %d, want 3", got)
			}
		})
	}
}
