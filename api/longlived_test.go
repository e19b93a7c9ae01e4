package api_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// short is the HTTP server's read and write timeout in these tests; the
// answers come several times later.
const short = 300 * time.Millisecond

func shortTimeouts(hs *http.Server) {
	hs.ReadTimeout = short
	hs.WriteTimeout = short
}

// pendingID asks a pending question in session and returns its id.
func (s *server) pendingID(t *testing.T, session string) string {
	t.Helper()
	status, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"question": "Ship it?", "wait": "0s", "session_id": session})
	if status != 202 {
		t.Fatalf("pending ask: %d %v", status, b)
	}
	return b["id"].(string)
}

// answerLater answers the only pending question of session once the
// server's timeouts have long passed.
func (s *server) answerLater(t *testing.T, session string) {
	t.Helper()
	time.Sleep(4 * short)
	var id string
	for deadline := time.Now().Add(5 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, l := s.call(t, "GET", "/v1/questions?status=pending&session_id="+session, agentKey, nil)
		if qs := l["questions"].([]any); len(qs) == 1 {
			id = qs[0].(map[string]any)["id"].(string)
		}
	}
	if status, b := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": "/answer " + id + " Ship it"}); status != 200 {
		t.Errorf("answer: %d %v", status, b)
	}
}

func TestLongPollsOutliveTheWriteTimeout(t *testing.T) {
	s := newServer(t, shortTimeouts)
	tests := []struct {
		name string
		call func(t *testing.T, session string) (int, map[string]any)
	}{
		{"ask that waits", func(t *testing.T, session string) (int, map[string]any) {
			return s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"question": "Ship it?", "wait": "20s", "session_id": session})
		}},
		{"get that waits", func(t *testing.T, session string) (int, map[string]any) {
			return s.call(t, "GET", "/v1/questions/"+s.pendingID(t, session)+"?wait=20s", agentKey, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			session := strings.ReplaceAll(tt.name, " ", "-")
			go s.answerLater(t, session)
			status, b := tt.call(t, session)
			if status != 200 || b["status"] != "answered" {
				t.Fatalf("a long-poll answered after %s, with a write timeout of %s: %d %v", 4*short, short, status, b)
			}
		})
	}
}

func TestEventStreamOutlivesTheWriteTimeout(t *testing.T) {
	s := newServer(t, shortTimeouts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+agentKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /v1/events: %d", resp.StatusCode)
	}
	id := s.pendingID(t, "stream")
	go s.answerLater(t, "stream")
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "data: ") && strings.Contains(lines.Text(), id) && strings.Contains(lines.Text(), `"answered"`) {
			return
		}
	}
	t.Fatalf("the stream ended before the resolution of %s, answered %s in with a write timeout of %s: %v", id, 4*short, short, lines.Err())
}
