package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestRetriesStopWhenTheContextEnds runs each of the adapter's retry
// loops against a bridge that keeps answering 503 (it is restarting),
// ends the context during the second try, and checks the loop returns
// without trying again.
func TestRetriesStopWhenTheContextEnds(t *testing.T) {
	loops := map[string]func(ctx context.Context, s *Server, a Asker) error{
		"submit": func(ctx context.Context, s *Server, a Asker) error {
			_, err := s.submit(ctx, a, client.Question{Question: "Go?"}, true)
			if err == nil {
				t.Error("submit returned no error")
			}
			return nil
		},
		"wait": func(ctx context.Context, s *Server, a Asker) error {
			res, err := s.waitFor(ctx, a, "abcdef", 0, func(*client.Result) {})
			if res == nil || res.Status != client.StatusPending {
				t.Errorf("waitFor returned %+v, want the last known pending state", res)
			}
			return err
		},
		"get": func(ctx context.Context, s *Server, a Asker) error {
			if _, err := s.getOnce(ctx, a, "abcdef"); err == nil {
				t.Error("getOnce returned no error")
			}
			return nil
		},
	}
	for name, loop := range loops {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var tries atomic.Int32
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tries.Add(1) == 2 {
					cancel()
				}
				http.Error(w, `{"error":{"code":"draining","message":"restarting"}}`, http.StatusServiceUnavailable)
			}))
			defer hs.Close()
			s, err := New(Config{Asker: Fixed(client.New(hs.URL, ""))})
			if err != nil {
				t.Fatal(err)
			}
			s.submitRetry = time.Hour
			done := make(chan error, 1)
			go func() { done <- loop(ctx, s, client.New(hs.URL, "")) }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("error %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the loop did not stop when its context ended")
			}
			if n := tries.Load(); n != 2 {
				t.Errorf("%d tries, want 2: none after the context ended", n)
			}
		})
	}
}
