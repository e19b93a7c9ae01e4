package callback_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/callback"
)

// webhook is the receiver recipe of docs/callbacks.md: read the raw body,
// verify it, only then decode it.
func webhook(secret string, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read body", http.StatusBadRequest)
			return
		}
		if err := callback.Verify(secret, r.Header, body, 5*time.Minute, now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		// Deduplicate on r.Header.Get(callback.HeaderDelivery), then
		// hand body (the result JSON) to the agent.
		w.WriteHeader(http.StatusNoContent)
	})
}

// signed builds a callback request as the bridge sends it.
func signed(secret string, at time.Time, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
	r.Header.Set(callback.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	r.Header.Set(callback.HeaderSignature, callback.Sign(secret, at, []byte(body)))
	r.Header.Set(callback.HeaderDelivery, "d_test")
	return r
}

func TestReceiverRecipe(t *testing.T) {
	now := time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)
	body := `{"id":"k7m2qx","status":"answered"}`
	tests := []struct {
		name    string
		req     func() *http.Request
		want    int
		wantErr error
	}{
		{"genuine", func() *http.Request { return signed("s1", now, body) }, http.StatusNoContent, nil},
		{"tampered body", func() *http.Request {
			r := signed("s1", now, body)
			r.Body = io.NopCloser(strings.NewReader(strings.Replace(body, "answered", "declined", 1)))
			return r
		}, http.StatusUnauthorized, callback.ErrBadSignature},
		{"old timestamp", func() *http.Request { return signed("s1", now.Add(-6*time.Minute), body) }, http.StatusUnauthorized, callback.ErrStale},
		{"future timestamp", func() *http.Request { return signed("s1", now.Add(6*time.Minute), body) }, http.StatusUnauthorized, callback.ErrStale},
		{"timestamp changed after signing", func() *http.Request {
			r := signed("s1", now.Add(-time.Minute), body)
			r.Header.Set(callback.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
			return r
		}, http.StatusUnauthorized, callback.ErrBadSignature},
		{"wrong secret", func() *http.Request { return signed("s2", now, body) }, http.StatusUnauthorized, callback.ErrBadSignature},
		{"unsigned", func() *http.Request {
			r := signed("s1", now, body)
			r.Header.Del(callback.HeaderSignature)
			return r
		}, http.StatusUnauthorized, callback.ErrNoSignature},
		{"rotation: second signature matches", func() *http.Request {
			r := signed("s1", now, body)
			r.Header.Set(callback.HeaderSignature, callback.Sign("old", now, []byte(body))+", "+r.Header.Get(callback.HeaderSignature))
			return r
		}, http.StatusNoContent, nil},
	}
	h := webhook("s1", func() time.Time { return now })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tt.req())
			if rec.Code != tt.want {
				t.Errorf("status = %d (%s), want %d", rec.Code, strings.TrimSpace(rec.Body.String()), tt.want)
			}
			r := tt.req()
			b, _ := io.ReadAll(r.Body)
			if err := callback.Verify("s1", r.Header, b, 5*time.Minute, now); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Verify = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// shellRecipe is the openssl recipe of docs/callbacks.md.
const shellRecipe = `
expected="sha256=$(printf '%s.' "$TS" | cat - body.json \
  | openssl dgst -sha256 -hmac "$ASKBRIDGE_CALLBACK_SECRET" | sed 's/^.*= //')"
[ "$expected" = "$SIG" ] || echo "bad signature"
[ $(( $(date +%s) - TS )) -le 300 ] && [ $(( TS - $(date +%s) )) -le 300 ] || echo "stale"
`

// The shell recipe accepts a genuine callback and rejects a tampered body
// and an old timestamp.
func TestShellRecipe(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	now := time.Now()
	body := `{"id":"k7m2qx","status":"answered","answers":{"Deploy?":{"selected":["Yes"]}}}` + "\n"
	tests := []struct {
		name string
		at   time.Time
		sent string
		want string
	}{
		{"genuine", now, body, ""},
		{"tampered body", now, strings.Replace(body, "Yes", "No", 1), "bad signature"},
		{"old timestamp", now.Add(-10 * time.Minute), body, "stale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(dir+"/body.json", []byte(tt.sent), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", shellRecipe)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "ASKBRIDGE_CALLBACK_SECRET=s3cret",
				"TS="+strconv.FormatInt(tt.at.Unix(), 10), "SIG="+callback.Sign("s3cret", tt.at, []byte(body)))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got := string(bytes.TrimSpace(out)); got != tt.want {
				t.Errorf("recipe said %q, want %q", got, tt.want)
			}
		})
	}
}

func ExampleVerify() {
	secret := "s3cret"
	at := time.Unix(1764453600, 0)
	body := []byte(`{"id":"k7m2qx","status":"answered"}`)
	h := http.Header{}
	h.Set(callback.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	h.Set(callback.HeaderSignature, callback.Sign(secret, at, body))

	fmt.Println(callback.Verify(secret, h, body, 5*time.Minute, at.Add(time.Minute)))
	fmt.Println(callback.Verify(secret, h, body, 5*time.Minute, at.Add(time.Hour)) != nil)
	// Output:
	// <nil>
	// true
}
