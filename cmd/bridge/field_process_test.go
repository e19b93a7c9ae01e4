package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestProcessAskField asks with `bridge ask --field`, answers out of
// range with `bridge answer` (refused: exit 2, the rule in words, nothing
// recorded), then in range: ask prints the result with the value typed.
func TestProcessAskField(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	startServe(t, addr, nil, "--data-dir", dir)
	ask := startBridge(t, addr, "ask", "--header", "Port", "--field", "port:integer:1024..65535", "--default", "8080", "Which port should the service listen on?")
	id := waitPending(t, addr, 1)[0]
	r := runBridge(t, addr, "answer", id, "80")
	if r.code != cmdline.ExitBadInput || !strings.Contains(r.stderr, "Port must be a whole number from 1024 to 65535; nothing was recorded.") {
		t.Fatalf("bridge answer %s 80: exit %d, %q %q; want 2 and the rule", id, r.code, r.stdout, r.stderr)
	}
	if r := runBridge(t, addr, "answer", id, "8443"); r.code != cmdline.ExitOK {
		t.Fatalf("bridge answer %s 8443: exit %d, %q %q", id, r.code, r.stdout, r.stderr)
	}
	if code := ask.wait(t, 40*time.Second); code != cmdline.ExitOK {
		t.Fatalf("bridge ask exit %d: %s%s", code, ask.out.String(), ask.errb.String())
	}
	var res struct {
		Status    string `json:"status"`
		Questions []struct {
			Default []string `json:"default"`
			Field   struct {
				Default json.RawMessage `json:"default"`
			} `json:"field"`
		} `json:"questions"`
		Answers map[string]struct {
			Value json.RawMessage `json:"value"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(ask.out.String()), &res); err != nil {
		t.Fatalf("bridge ask printed %q: %v", ask.out.String(), err)
	}
	if res.Status != "answered" || string(res.Answers["Which port should the service listen on?"].Value) != "8443" {
		t.Fatalf("bridge ask printed %s; want answered with the value 8443", ask.out.String())
	}
	if len(res.Questions) != 1 || string(res.Questions[0].Field.Default) != "8080" || strings.Join(res.Questions[0].Default, ",") != "8080" {
		t.Errorf("the question reads %+v, want the default 8080, typed in its field", res.Questions)
	}
}

// TestProcessAskBadField checks that a --field the command line cannot
// read, and one the bridge refuses, exit 2 naming the problem and ask
// nothing.
func TestProcessAskBadField(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--field", "port:int", "Which port?"}, `bridge ask: --field "port:int": "int" is not a type`},
		{[]string{"--field", "port:integer:1..x", "Which port?"}, "the rule of integer is its range, MIN..MAX, MIN.. or ..MAX"},
		{[]string{"--field", "port:integer", "--multi", "Which port?"}, "--multi with --field takes an enum"},
		{[]string{"--field", "port:integer:10..1", "Which port?"}, "field.minimum: 10 is more than maximum, 1"},
		{[]string{"--field", "level:enum:low|low", "Which level?"}, `field.choices[1].value: duplicate value "low"`},
		{[]string{"--field", "start:date", "--default", "soon", "When?"}, `default: must be a date such as 2026-12-03; got "soon"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runBridge(t, addr, append([]string{"ask", "--connect-timeout", "10s"}, tc.args...)...)
			if r.code != cmdline.ExitBadInput || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
	if ids := waitPending(t, addr, 0); len(ids) != 0 {
		t.Fatalf("bad fields asked %v", ids)
	}
}
