package hooks

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestSubmitWithinStopsWhenItsTimeEnds: a bridge that keeps answering 503
// is tried again until the hook's time is up, then the hook gives up with
// an error naming the bridge and the time.
func TestSubmitWithinStopsWhenItsTimeEnds(t *testing.T) {
	var tries atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer hs.Close()
	t.Setenv("ASKBRIDGE_SERVER", hs.URL)
	done := make(chan error, 1)
	go func() {
		_, err := submitWithin(context.Background(), client.New(hs.URL, ""), client.Question{Question: "Run it?"}, 500*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		// The time may also end during a try rather than a pause.
		if err == nil || !strings.Contains(err.Error(), "the bridge at "+hs.URL+" did not answer within 500ms") && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want one naming the bridge and the time", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("submitWithin kept trying after its time")
	}
	if n := tries.Load(); n < 2 {
		t.Errorf("%d tries, want the 503 retried", n)
	}
}
