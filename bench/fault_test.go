package bench

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestFaultVerdict(t *testing.T) {
	tests := []struct {
		name string
		r    FaultResult
		want string
	}{
		{"all good", FaultResult{Name: "kill9", Asked: 10, Answered: 10, Recovery: time.Second}, "PASS kill9: 10 asked, 10 answered, 0 lost"},
		{"nothing asked", FaultResult{Name: "kill9"}, "FAIL kill9: 0 asked"},
		{"a lost question", FaultResult{Name: "kill9", Asked: 10, Answered: 9, Lost: 1}, "FAIL kill9: 10 asked, 9 answered, 1 lost"},
		{"resolved twice", FaultResult{Name: "redis-restart", Asked: 3, Answered: 3, Twice: 1}, "1 resolved twice"},
		{"unedited copy", FaultResult{Name: "platform-cut", Asked: 3, Answered: 3, CopiesUnedited: 2, Notes: []string{"why"}}, "FAIL platform-cut"},
		{"missing callback", FaultResult{Name: "kill9", Asked: 3, Answered: 3, CallbacksMissing: 1}, "FAIL kill9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r
			r.decide()
			got := r.Verdict()
			if !strings.Contains(got, tt.want) {
				t.Errorf("verdict %q lacks %q", got, tt.want)
			}
			if strings.HasPrefix(got, "PASS") != r.OK {
				t.Errorf("verdict %q disagrees with OK=%v", got, r.OK)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("verdict spans lines: %q", got)
			}
		})
	}
}

func TestParseMetrics(t *testing.T) {
	page := "# HELP askbridge_waiters Waits under way.\n# TYPE askbridge_waiters gauge\naskbridge_waiters 1234\n" +
		"askbridge_questions_resolved_total{status=\"answered\"} 5\ngo_goroutines 2480\ngo_memstats_stack_inuse_bytes 1.6384e+07\n"
	m := parseMetrics(bufio.NewScanner(strings.NewReader(page)))
	if m["askbridge_waiters"] != 1234 || m["go_goroutines"] != 2480 || m["go_memstats_stack_inuse_bytes"] != 16384000 {
		t.Errorf("parsed %v", m)
	}
	if _, ok := m["askbridge_questions_resolved_total"]; ok {
		t.Error("a labelled sample was taken as unlabelled")
	}
}

func TestCutProxy(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true,"result":true}`)
	}))
	defer backend.Close()
	p, err := newCutProxy(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	get := func() (int, string, error) {
		resp, err := http.Get(p.URL() + "/botX/getMe")
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	if code, body, err := get(); err != nil || code != 200 || !strings.Contains(body, `"ok":true`) {
		t.Fatalf("open link: %d %q %v", code, body, err)
	}
	p.Set(true)
	if _, _, err := get(); err == nil {
		t.Error("a cut link answered")
	}
	p.Set(false)
	p.Flood(true)
	if code, body, err := get(); err != nil || code != http.StatusTooManyRequests || !strings.Contains(body, `"retry_after":2`) {
		t.Errorf("flood: %d %q %v", code, body, err)
	}
	p.Flood(false)
	if code, _, err := get(); err != nil || code != 200 {
		t.Errorf("restored link: %d %v", code, err)
	}
}
