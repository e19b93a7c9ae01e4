package api_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// inProcess is a client of s that sends its requests through the
// server's in-process transport, with key.
func inProcess(s *server, key string) *client.Client {
	c := client.New("http://askbridge.in-process", key)
	c.SetTransport(s.api.Transport())
	return c
}

// The SDK client over the in-process transport speaks the API's contract:
// the same answers, the same waits and the same errors as over the
// network.
func TestInProcessTransport(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	agent, net := inProcess(s, agentKey), client.New(s.URL, agentKey)

	res, err := agent.Submit(ctx, client.Question{Question: "Deploy now?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}, Wait: "0s"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != client.StatusPending || res.ID == "" {
		t.Fatalf("submit: %+v, want pending with an id", res)
	}
	// A person answers while the agent waits in process.
	done := make(chan *client.Result, 1)
	go func() {
		r, err := agent.Get(ctx, res.ID, 20*time.Second)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	if _, err := inProcess(s, annaKey).Command(ctx, "", "/answer "+res.ID+" 2"); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got == nil || got.Status != client.StatusAnswered || len(got.Answers["Deploy now?"].Selected) != 1 || got.Answers["Deploy now?"].Selected[0] != "No" {
		t.Fatalf("waited result %+v, want answered No", got)
	}
	over, err := net.Get(ctx, res.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(over, got) {
		t.Fatalf("in process %+v\nover the network %+v", got, over)
	}

	// Errors come from the one table, as over the network.
	for _, tc := range []struct {
		name string
		call func() error
		code string
		stat int
	}{
		{"wrong key", func() error { _, err := inProcess(s, "wrong").Get(ctx, res.ID, 0); return err }, "unauthorized", 401},
		{"another agent's question", func() error { _, err := inProcess(s, otherKey).Get(ctx, res.ID, 0); return err }, "not_found", 404},
		{"cancel an answered question", func() error { _, err := agent.Cancel(ctx, res.ID, "late"); return err }, "closed", 409},
		{"bad question", func() error { _, err := agent.Submit(ctx, client.Question{Wait: "0s"}); return err }, "invalid", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ae *client.APIError
			if err := tc.call(); !errors.As(err, &ae) || ae.Code != tc.code || ae.StatusCode != tc.stat {
				t.Fatalf("error %v, want %d %s", err, tc.stat, tc.code)
			}
		})
	}
}
