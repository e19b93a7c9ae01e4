package api_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// internals are what must never show in an error a client reads: Go type
// names, package and store prefixes, the JSON decoder's voice, raw
// network errors.
var internals = regexp.MustCompile(`sqlite|redis|json:|broker\.|api\.|\[\]|map\[|\bu?int(8|16|32|64)?\b|float(32|64)|\*[A-Za-z]|dial tcp|connection refused|\bEOF\b|%!|<nil>|reflect|struct \{`)

// TestErrorTextsAreForTheReader sends a table of bad requests to the API
// on both stores and checks each refusal names the problem in words,
// with none of the internals above.
func TestErrorTextsAreForTheReader(t *testing.T) {
	stores := map[string]func(t *testing.T) broker.Store{
		"sqlite": func(t *testing.T) broker.Store { return sqlitetest.OpenStore(t) },
		"redis": func(t *testing.T) broker.Store {
			st, err := redisstore.Open(context.Background(), redistest.Shared(t), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
	tests := []struct {
		name, method, path, key string
		body                    any
		status                  int
		says                    string
	}{
		{"unknown question", "GET", "/v1/questions/zzzzzz", agentKey, nil, 404, "there is no question zzzzzz"},
		{"unknown question, long-poll", "GET", "/v1/questions/zzzzzz?wait=1s", agentKey, nil, 404, "there is no question zzzzzz"},
		{"cancel unknown", "POST", "/v1/questions/zzzzzz/cancel", agentKey, nil, 404, "there is no question zzzzzz"},
		{"deliveries of unknown", "GET", "/v1/questions/zzzzzz/deliveries", agentKey, nil, 404, "there is no question zzzzzz"},
		{"questions not a list", "POST", "/v1/questions", agentKey, `{"questions":"hi"}`, 400, "questions: must be a list of questions, got a string"},
		{"question not a string", "POST", "/v1/questions", agentKey, `{"questions":[{"question":1}]}`, 400, "questions[0].question: must be a string, got the number 1"},
		{"options not a list", "POST", "/v1/questions", agentKey, `{"questions":[{"question":"x?","options":"a"}]}`, 400, "questions[0].options: must be a list of options, got a string"},
		{"nested unknown field", "POST", "/v1/questions", agentKey, `{"question":"x?","options":[{"label":"a","colour":1},{"label":"b"}]}`, 400, "unknown field options[0].colour"},
		{"default of a number", "POST", "/v1/questions", agentKey, `{"questions":[{"question":"x?","default":5}]}`, 400, "questions[0].default: must be a string or a list of strings"},
		{"body a list", "POST", "/v1/questions", agentKey, `[1]`, 400, "the request body must be a JSON object, got a list"},
		{"not JSON", "POST", "/v1/questions", agentKey, `{bad`, 400, "the request body is not valid JSON"},
		{"cut short", "POST", "/v1/questions", agentKey, `{"question":`, 400, "the request body ends before its JSON is complete"},
		{"trailing data", "POST", "/v1/questions", agentKey, `{"question":"x?"} x`, 400, "nothing after it"},
		{"bool as string", "POST", "/v1/questions", agentKey, `{"question":"x?","multi_select":"yes"}`, 400, "multi_select: must be true or false, got a string"},
		{"reminders of strings", "POST", "/v1/questions", agentKey, `{"question":"x?","reminders":["a"]}`, 400, "reminders[0]: must be a number, got a string"},
		{"bad timeout", "POST", "/v1/questions", agentKey, `{"question":"x?","timeout":"7x"}`, 400, `timeout: "7x" is not a duration (use e.g. 30s, 30m, 2h, 7d)`},
		{"timeout far too long", "POST", "/v1/questions", agentKey, `{"question":"x?","timeout":1e300}`, 400, "far too long"},
		{"command text a number", "POST", "/v1/commands", annaKey, `{"text":5}`, 400, "text: must be a string, got the number 5"},
		{"cancel reason a number", "POST", "/v1/sessions/s1/cancel", agentKey, `{"reason":5}`, 400, "reason: must be a string, got the number 5"},
		{"bad wait", "GET", "/v1/questions/zzzzzz?wait=soon", agentKey, nil, 400, `wait: "soon" is not a duration`},
		{"bad status filter", "GET", "/v1/questions?status=done", agentKey, nil, 400, "status: must be one of"},
		{"bad event id", "GET", "/v1/events?last_event_id=x", agentKey, nil, 400, "last_event_id: must be the id of an event"},
		{"no such endpoint", "GET", "/v1/nothing", agentKey, nil, 404, "no such endpoint"},
		{"wrong key", "GET", "/v1/questions", "not-a-key", nil, 401, "missing or wrong agent key"},
	}
	for sname, open := range stores {
		t.Run(sname, func(t *testing.T) {
			st := open(t)
			s := serverOn(t, st)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					status, body := s.call(t, tt.method, tt.path, tt.key, tt.body)
					_, msg := errField(body)
					if status != tt.status || !strings.Contains(msg, tt.says) {
						t.Fatalf("got %d %q, want %d with %q", status, msg, tt.status, tt.says)
					}
					if bad := internals.FindString(msg); bad != "" {
						t.Fatalf("message %q shows %q", msg, bad)
					}
				})
			}
			t.Run("store down", func(t *testing.T) {
				st.Close()
				for _, c := range []struct{ method, path string }{
					{"POST", "/v1/questions"}, {"GET", "/v1/questions"}, {"GET", "/v1/questions/zzzzzz"}, {"GET", "/readyz"},
				} {
					status, body := s.call(t, c.method, c.path, agentKey, `{"question":"x?","wait":"0s"}`)
					_, msg := errField(body)
					if status != 503 || msg == "" || internals.MatchString(msg) {
						t.Fatalf("%s %s with the store down: %d %q", c.method, c.path, status, msg)
					}
				}
			})
		})
	}
}

// serverOn is an API server over st, like newServer.
func serverOn(t *testing.T, st broker.Store) *server {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	b, err := broker.New(broker.Config{Store: st, Logger: log, Routes: map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "cli"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b.Register(&cli.Channel{})
	srv := api.New(api.Config{
		AgentKeys:     []api.Key{{Name: "claude", Secret: agentKey}},
		ResponderKeys: []api.Key{{Name: "Anna", User: "anna", Secret: annaKey}},
		Loopback:      true, Logger: log,
	}, b, st)
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close(); cancel(); b.Close(); st.Close() })
	return &server{Server: hs, b: b, st: st}
}
