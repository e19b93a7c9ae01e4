package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetryStopsWhenTheContextEnds: with retry set, a request that keeps
// meeting a restarting server (503) is sent again until its context ends,
// and not once more after that.
func TestRetryStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var tries atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tries.Add(1) == 3 {
			cancel()
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer hs.Close()
	a := newAgentAPI(1, true)
	defer a.close()
	done := make(chan int, 1)
	go func() {
		code, _ := a.do(ctx, http.MethodGet, hs.URL+"/v1/questions/abcdef", nil, nil)
		done <- code
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the request was still retried after its context ended")
	}
	if n := tries.Load(); n != 3 {
		t.Errorf("%d tries, want 3: none after the context ended", n)
	}

	// Without retry, one 503 is the answer.
	tries.Store(10)
	if code, err := newAgentAPI(1, false).do(context.Background(), http.MethodGet, hs.URL, nil, nil); code != http.StatusServiceUnavailable || err != nil || tries.Load() != 11 {
		t.Errorf("without retry: %d, %v after %d tries, want one 503", code, err, tries.Load()-10)
	}
}
