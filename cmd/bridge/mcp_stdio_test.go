package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestMCPStdioOutcomes drives `bridge mcp` with the SDK's own client
// against a `bridge serve` process; people answer through the cli
// channel, as `bridge answer` does.
func TestMCPStdioOutcomes(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	conn := startMCPStdio(t, addr)
	api := client.New("http://"+addr, "")

	tests := []struct {
		name     string
		args     map[string]any
		respond  func(id string) []string // commands a person sends
		want     []string                 // in the text, in order
		status   client.Status
		selected map[string][]string
		custom   map[string]string
	}{
		{
			name:     "single answer",
			args:     askArgs(prompt("Which database for the service?", "Postgres (Recommended)", "SQLite")),
			respond:  func(id string) []string { return []string{"/answer " + id + " 2"} },
			want:     []string{"User answered your questions:\n", `"Which database for the service?": {`, `"selected": [`, `"SQLite"`, `"custom_text": ""`, `"skipped": false`},
			status:   client.StatusAnswered,
			selected: map[string][]string{"Which database for the service?": {"SQLite"}},
		},
		{
			name: "multi-select",
			args: askArgs(func() map[string]any {
				p := prompt("Which checks should run?", "Lint", "Unit tests", "Fuzzing")
				p["multi_select"] = true
				return p
			}()),
			respond:  func(id string) []string { return []string{"/answer " + id + " 1,3"} },
			want:     []string{"User answered your questions:"},
			status:   client.StatusAnswered,
			selected: map[string][]string{"Which checks should run?": {"Lint", "Fuzzing"}},
		},
		{
			name:    "other text",
			args:    askArgs(prompt("Which cache store?", "Redis", "Memcached")),
			respond: func(id string) []string { return []string{"/answer " + id + " other use the CDN instead"} },
			want:    []string{"User answered your questions:", `"custom_text": "use the CDN instead"`},
			status:  client.StatusAnswered,
			custom:  map[string]string{"Which cache store?": "use the CDN instead"},
		},
		{
			name: "several questions",
			args: askArgs(prompt("Which region?", "Europe", "America"), prompt("How many replicas?", "One", "Three")),
			respond: func(id string) []string {
				return []string{"/answer " + id + ".1 1", "/answer " + id + ".2 Three"}
			},
			want:     []string{"User answered your questions:", `"How many replicas?"`, `"Which region?"`},
			status:   client.StatusAnswered,
			selected: map[string][]string{"Which region?": {"Europe"}, "How many replicas?": {"Three"}},
		},
		{
			name:    "declined",
			args:    askArgs(prompt("May I delete the old backups?", "Yes", "No")),
			respond: func(id string) []string { return []string{"/decline " + id + " not before the audit"} },
			want:    []string{"The user declined: not before the audit. Do not ask again unless you must."},
			status:  client.StatusDeclined,
		},
		{
			name:    "wants to discuss",
			args:    askArgs(prompt("Ship the migration tonight?", "Yes", "No")),
			respond: func(id string) []string { return []string{"/discuss " + id + " what happens to the old rows?"} },
			want:    []string{"wants to discuss this first: what happens to the old rows?", "instead of asking the same question again"},
			status:  client.StatusDeclined,
		},
		{
			name: "timed out without default",
			args: func() map[string]any {
				a := askArgs(prompt("Rotate the keys now?", "Yes", "No"))
				a["timeout"] = "10s"
				return a
			}(),
			want:   []string{"Nobody answered in time and there was no default: there is no answer."},
			status: client.StatusTimedOut,
		},
		{
			name: "timed out with default",
			args: func() map[string]any {
				p := prompt("Which log level?", "Info (Recommended)", "Debug")
				p["default"] = "Info (Recommended)"
				a := askArgs(p)
				a["timeout"] = "10s"
				return a
			}(),
			want:     []string{"Nobody answered in time, so the defaults were used:", `"Which log level?"`, `"defaulted": true`},
			status:   client.StatusTimedOut,
			selected: map[string][]string{"Which log level?": {"Info (Recommended)"}},
		},
		{
			name: "unsupported route",
			args: func() map[string]any {
				a := askArgs(prompt("Anyone there?", "Yes", "No"))
				a["route"] = "nowhere"
				return a
			}(),
			want:   []string{"No channel is configured to reach the user: ask in your reply instead."},
			status: client.StatusUnsupported,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			ch := conn.callAsync(t, ctx, "ask_user", tc.args, nil)
			if tc.respond != nil {
				q := tc.args["questions"].([]map[string]any)[0]["question"].(string)
				id := questionNamed(t, api, q).ID
				for _, cmd := range tc.respond(id) {
					command(t, api, cmd)
				}
			}
			res := receive(t, ch, 35*time.Second)
			got := text(res)
			if res.IsError {
				t.Fatalf("tool error: %s", got)
			}
			pos := 0
			for _, w := range tc.want {
				i := strings.Index(got[pos:], w)
				if i < 0 {
					t.Fatalf("result text lacks %q (in order):\n%s", w, got)
				}
				pos += i + len(w)
			}
			o := outcome(t, res)
			if o.Status != tc.status || o.ID == "" {
				t.Fatalf("structured status %q id %q, want %q", o.Status, o.ID, tc.status)
			}
			for q, want := range tc.selected {
				if got := o.Answers[q].Selected; !slices.Equal(got, want) {
					t.Errorf("answers[%q].selected = %q, want %q", q, got, want)
				}
			}
			for q, want := range tc.custom {
				if got := o.Answers[q].CustomText; got != want {
					t.Errorf("answers[%q].custom_text = %q, want %q", q, got, want)
				}
			}
		})
	}
}

// TestMCPStdioWaiting shows what happens while a question waits: progress
// notifications, cancellation by the client, re-attaching by progress
// token, and pending mode with get_answer and cancel_question.
func TestMCPStdioWaiting(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	conn := startMCPStdio(t, addr)
	api := client.New("http://"+addr, "")

	t.Run("progress while waiting", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ch := conn.callAsync(t, ctx, "ask_user", askArgs(prompt("Deploy to staging first?", "Yes", "No")), "progress-test")
		id := questionNamed(t, api, "Deploy to staging first?").ID
		deadline := time.Now().Add(15 * time.Second)
		for len(conn.progressFor("progress-test")) < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("%d progress notifications while waiting, want at least 2", len(conn.progressFor("progress-test")))
			}
			time.Sleep(50 * time.Millisecond)
		}
		// No inbox page is open: the first notification says so at once,
		// the next ones that the call still waits.
		got := conn.progressFor("progress-test")
		if !strings.HasPrefix(got[0], "Asked question "+id+". Warning: nobody is watching the web inbox; the question will wait until ") {
			t.Errorf("first progress message %q, want the warning naming the question", got[0])
		}
		if !strings.Contains(got[1], "Waiting for an answer to question "+id) {
			t.Errorf("progress message %q does not name the question", got[1])
		}
		command(t, api, "/answer "+id+" 1")
		if res := receive(t, ch, 20*time.Second); !strings.HasPrefix(text(res), "User answered your questions:") {
			t.Fatalf("result after progress: %s", text(res))
		}
	})

	t.Run("cancelled by the client", func(t *testing.T) {
		t.Parallel()
		checkCancelledByClient(t, conn, api, "Rebuild the index?")
	})

	t.Run("retried call re-attaches", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		args := askArgs(prompt("Keep the feature flag?", "Keep", "Remove"))
		first := conn.call(t, ctx, "ask_user", withWait(args, false), "retry-token")
		id := outcome(t, first).ID
		if id == "" || outcome(t, first).Status != client.StatusPending {
			t.Fatalf("first call: %s", text(first))
		}
		ch := conn.callAsync(t, ctx, "ask_user", args, "retry-token")
		time.Sleep(300 * time.Millisecond) // let the retry attach before answering
		command(t, api, "/answer "+id+" 2")
		second := receive(t, ch, 20*time.Second)
		if o := outcome(t, second); o.ID != id || o.Answers["Keep the feature flag?"].Selected[0] != "Remove" {
			t.Fatalf("retry got %+v, want the answer to %s", o, id)
		}
		third := conn.call(t, ctx, "ask_user", args, "retry-token")
		if o := outcome(t, third); o.ID != id || o.Status != client.StatusAnswered {
			t.Fatalf("a retry after the answer got %+v, want the answer to %s", o, id)
		}
		n := 0
		for _, r := range listQuestions(t, api) {
			if r.Questions[0].Question == "Keep the feature flag?" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d questions asked for three calls with one token, want 1", n)
		}
	})

	t.Run("pending mode with get_answer and cancel_question", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res := conn.call(t, ctx, "ask_user", withWait(askArgs(prompt("Archive the repo?", "Yes", "No")), false), nil)
		id := outcome(t, res).ID
		if !strings.Contains(text(res), fmt.Sprintf("Call get_answer with id %q", id)) {
			t.Fatalf("pending result: %s", text(res))
		}
		still := conn.call(t, ctx, "get_answer", map[string]any{"id": id, "wait_seconds": 0}, nil)
		if !strings.HasPrefix(text(still), "Still pending") || still.IsError {
			t.Fatalf("get_answer on a pending question: %s", text(still))
		}
		gone := conn.call(t, ctx, "cancel_question", map[string]any{"id": id, "reason": "found it in the docs"}, nil)
		if text(gone) != "Question "+id+" was cancelled." {
			t.Fatalf("cancel_question: %s", text(gone))
		}
		after := conn.call(t, ctx, "get_answer", map[string]any{"id": id}, nil)
		if text(after) != "The question was cancelled: found it in the docs." {
			t.Fatalf("get_answer after cancel: %s", text(after))
		}
		bad := conn.call(t, ctx, "get_answer", map[string]any{"id": id, "wait_seconds": 61}, nil)
		if !bad.IsError || !strings.Contains(text(bad), "wait_seconds: must be 0 to 60, got 61") {
			t.Fatalf("get_answer with wait_seconds 61: %s", text(bad))
		}
	})
}

func withWait(args map[string]any, wait bool) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	out["wait"] = wait
	return out
}
