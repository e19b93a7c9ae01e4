package timeouts_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
)

func noOther() *bool { f := false; return &f }

// TestBadTimeoutInput checks that every bad deadline, default, reminder or
// lease is refused with an error naming the field, and stores nothing.
func TestBadTimeoutInput(t *testing.T) {
	db := options("Postgres", "SQLite")
	tests := []struct {
		name      string
		req       broker.AskRequest
		wantField string
		wantText  string
	}{
		{"timeout below 10 s", broker.AskRequest{Question: "Q?", Timeout: dur(9 * time.Second)}, "timeout", "between 10s and 7d"},
		{"timeout above 7 days", broker.AskRequest{Question: "Q?", Timeout: dur(7*24*time.Hour + time.Second)}, "timeout", "between 10s and 7d"},
		{"default that is not an option, free text forbidden", broker.AskRequest{Question: "Q?", Options: db, Other: noOther(), Default: broker.StringList{"Mongo"}}, "default", `"Mongo" is not one of the options`},
		{"multi-select default naming a missing label", broker.AskRequest{Question: "Q?", Options: db, MultiSelect: true, Default: broker.StringList{"SQLite", "Mongo"}}, "default", `"Mongo" is not one of the options`},
		{"two defaults on a single-choice question", broker.AskRequest{Question: "Q?", Options: db, Default: broker.StringList{"SQLite", "Postgres"}}, "default", "takes one default"},
		{"blank default", broker.AskRequest{Question: "Q?", Options: db, Default: broker.StringList{" "}}, "default", "must not be empty"},
		{"bad default in the second prompt of a dialog", broker.AskRequest{Questions: []broker.Prompt{
			{Question: "DB?", Options: db},
			{Question: "Cache?", Options: options("Redis", "None"), Other: noOther(), Default: broker.StringList{"Memcached"}},
		}}, "questions[1].default", `"Memcached" is not one of the options`},
		{"reminder point 0", broker.AskRequest{Question: "Q?", Reminders: []float64{0}}, "reminders[0]", "strictly between 0 and 1"},
		{"reminder point 1", broker.AskRequest{Question: "Q?", Reminders: []float64{0.5, 1}}, "reminders[1]", "strictly between 0 and 1"},
		{"negative reminder point", broker.AskRequest{Question: "Q?", Reminders: []float64{-0.5}}, "reminders[0]", "strictly between 0 and 1"},
		{"reminder points out of order", broker.AskRequest{Question: "Q?", Reminders: []float64{0.9, 0.5}}, "reminders[1]", "must increase"},
		{"lease below 5 s", broker.AskRequest{Question: "Q?", Lease: dur(time.Second)}, "lease", "between 5s and 7d"},
		{"lease above 7 days", broker.AskRequest{Question: "Q?", Lease: dur(8 * 24 * time.Hour)}, "lease", "between 5s and 7d"},
		{"negative lease", broker.AskRequest{Question: "Q?", Lease: dur(-time.Minute)}, "lease", "between 5s and 7d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, broker.Config{})
			_, _, err := e.broker.Ask(context.Background(), "a1", &tt.req)
			var fe *broker.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("ask: err = %v, want a field error", err)
			}
			if fe.Field != tt.wantField || !strings.Contains(fe.Message, tt.wantText) {
				t.Errorf("ask: %q, want field %q and a message with %q", err, tt.wantField, tt.wantText)
			}
			mustBeEmpty(t, e)
		})
	}
}

// TestGoodTimeoutInputAtTheLimits checks the edges that are allowed.
func TestGoodTimeoutInputAtTheLimits(t *testing.T) {
	db := options("Postgres", "SQLite")
	tests := []struct {
		name string
		req  broker.AskRequest
	}{
		{"a free-text default when other answers are allowed", broker.AskRequest{Question: "Q?", Options: db, Default: broker.StringList{"Mongo"}}},
		{"timeout of 10 s", broker.AskRequest{Question: "Q?", Timeout: dur(10 * time.Second)}},
		{"timeout of 7 days", broker.AskRequest{Question: "Q?", Timeout: dur(7 * 24 * time.Hour)}},
		{"lease of 5 s", broker.AskRequest{Question: "Q?", Lease: dur(5 * time.Second)}},
		{"reminder points near the ends", broker.AskRequest{Question: "Q?", Reminders: []float64{0.01, 0.99}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, broker.Config{})
			e.ask(t, &tt.req)
		})
	}
}

// TestBadTimeoutInputOverHTTP checks the same rules at the agent's front
// door: a 400 whose error names the field, and nothing stored.
func TestBadTimeoutInputOverHTTP(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantField string
		wantText  string
	}{
		{"timeout below 10 s", `{"question":"Q?","timeout":"5s"}`, "timeout", "between 10s and 7d"},
		{"timeout above 7 days", `{"question":"Q?","timeout":"169h"}`, "timeout", "between 10s and 7d"},
		{"timeout in seconds below 10", `{"question":"Q?","timeout":3}`, "timeout", "between 10s and 7d"},
		{"default not an option", `{"question":"Q?","options":[{"label":"Postgres"},{"label":"SQLite"}],"other":false,"default":"Mongo"}`, "default", `"Mongo" is not one of the options`},
		{"multi-select default naming a missing label", `{"question":"Q?","options":[{"label":"Postgres"},{"label":"SQLite"}],"multi_select":true,"default":["SQLite","Mongo"]}`, "default", `"Mongo" is not one of the options`},
		{"reminder point outside (0, 1)", `{"question":"Q?","reminders":[0.5,1.5]}`, "reminders[1]", "strictly between 0 and 1"},
		{"lease too short", `{"question":"Q?","lease":"2s"}`, "lease", "between 5s and 7d"},
		// The JSON decoder refuses these before validation; the API finds
		// and names the field.
		{"lease that is no duration", `{"question":"Q?","lease":"soon"}`, "lease", `"soon" is not a duration`},
		{"timeout that is no duration", `{"question":"Q?","timeout":"half an hour"}`, "timeout", `"half an hour" is not a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, broker.Config{})
			srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: quiet}, e.broker, e.store))
			defer srv.Close()
			resp, err := http.Post(srv.URL+"/v1/questions", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Error struct{ Code, Message, Field string } `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("decode error body: %v", err)
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400 (%+v)", resp.StatusCode, body.Error)
			}
			if body.Error.Field != tt.wantField || !strings.Contains(body.Error.Message, tt.wantText) {
				t.Errorf("error %+v, want field %q and a message with %q", body.Error, tt.wantField, tt.wantText)
			}
			if testing.Verbose() {
				t.Logf("400: %+v", body.Error)
			}
			mustBeEmpty(t, e)
		})
	}
}

func mustBeEmpty(t *testing.T, e *env) {
	t.Helper()
	qs, err := e.store.List(context.Background(), broker.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 0 || len(e.chat.Posts()) != 0 {
		t.Errorf("bad input stored %d question(s) and posted %d", len(qs), len(e.chat.Posts()))
	}
}
