package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/client"
)

// An ask whose question nobody watches carries the bridge's warning: in
// Submit's result, to OnWarnings as soon as the bridge has asked it
// (before the submit's wait ends), and in the Result Ask returns when the
// question ends.
func TestAskWarnings(t *testing.T) {
	br := newBridge(t, nil)
	c := newClient(br)
	q := client.Question{Question: "Rotate the keys?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}, Route: "quiet"}
	const want = "nobody is told of the question; the question will wait until "

	pending := q
	pending.Wait = "0s"
	res, err := c.Submit(context.Background(), pending)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], want) || !strings.HasSuffix(res.Warnings[0], ", then time out with no answer") {
		t.Fatalf("Submit's warnings = %q", res.Warnings)
	}

	var told []string
	var toldID string
	c.OnWarnings = func(r client.Result) {
		told, toldID = r.Warnings, r.ID
		// The person reads the text channel after all, and answers.
		rep := br.B.HandleInbound(context.Background(), broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + r.ID + " Nein"})
		if !rep.OK {
			t.Errorf("answer: %s", rep.Text)
		}
	}
	// The submit waits a minute: the warning comes before that wait
	// ends, as soon as the question is asked, and the answer given then
	// ends the ask. A default beyond ASCII comes through the header whole.
	q.Options = []client.Option{{Label: "Jä"}, {Label: "Nein"}}
	q.Default = []string{"Jä"}
	q.Wait = "1m"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	end, err := c.Ask(ctx, q)
	if err != nil {
		t.Fatalf("Ask: %v (no warning before the submit's wait ended?)", err)
	}
	if len(told) != 1 || !strings.HasPrefix(told[0], want) || !strings.HasSuffix(told[0], ", then time out with its default (Jä)") || toldID != end.ID {
		t.Fatalf("OnWarnings heard %q of %q", told, toldID)
	}
	if end.Status != client.StatusAnswered || len(end.Warnings) != 1 || end.Warnings[0] != told[0] {
		t.Fatalf("Ask's result = %s with warnings %q, want answered with %q", end.Status, end.Warnings, told)
	}

	c.OnWarnings = nil
	watched, err := c.Submit(context.Background(), client.Question{Question: "Deploy?", Options: deploy.Options, Wait: "0s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(watched.Warnings) != 0 {
		t.Fatalf("a question in a chat channel warned: %q", watched.Warnings)
	}
}

// no1xx is a ResponseWriter that drops informational responses, as some
// proxies do.
type no1xx struct{ http.ResponseWriter }

func (w no1xx) WriteHeader(code int) {
	if code >= 100 && code < 200 {
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w no1xx) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Behind a proxy that drops the early 103, OnWarnings still hears the
// warnings once, from the submit's answer when its wait ends, and Ask
// goes on waiting.
func TestAskWarningsWithoutEarlyHints(t *testing.T) {
	br := newBridge(t, nil)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		br.API().ServeHTTP(no1xx{w}, r)
	}))
	t.Cleanup(proxy.Close)
	c := client.New(proxy.URL, "")
	var told [][]string
	c.OnWarnings = func(r client.Result) {
		told = append(told, r.Warnings)
		if rep := br.B.HandleInbound(context.Background(), broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + r.ID + " Yes"}); !rep.OK {
			t.Errorf("answer: %s", rep.Text)
		}
	}
	q := client.Question{Question: "Rotate the keys?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}, Route: "quiet", Wait: "200ms"}
	end, err := c.Ask(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(told) != 1 || len(told[0]) != 1 || !strings.HasPrefix(told[0][0], "nobody is told of the question; ") {
		t.Fatalf("OnWarnings heard %q, want the warning once", told)
	}
	if end.Status != client.StatusAnswered || !slices.Equal(end.Warnings, told[0]) {
		t.Fatalf("Ask's result = %s with warnings %q", end.Status, end.Warnings)
	}
}
