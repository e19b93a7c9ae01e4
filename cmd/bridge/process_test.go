package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
)

type resultJSON struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Fallback string `json:"fallback"`
	Reason   string `json:"reason"`
	Answers  map[string]struct {
		Selected   []string `json:"selected"`
		CustomText string   `json:"custom_text"`
	} `json:"answers"`
	AnsweredBy *struct {
		Channel string `json:"channel"`
		User    string `json:"user"`
	} `json:"answered_by"`
}

func decodeResult(t *testing.T, s string) resultJSON {
	t.Helper()
	var r resultJSON
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, s)
	}
	return r
}

// The walkthrough of the README: serve, ask (blocks), list, answer, and
// the asking terminal prints the chosen label.
func TestProcessAskListAnswer(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	ask := startBridge(t, addr, "ask", "--option", "Postgres|a server", "--option", "SQLite|a file", "--header", "Database", "Which database should the service use?")
	ids := waitPending(t, addr, 1)
	list := runBridge(t, addr, "list")
	if !strings.Contains(list.stdout, "Which database should the service use?") || !strings.Contains(list.stdout, "1=Postgres 2=SQLite") {
		t.Fatalf("list shows:\n%s", list.stdout)
	}
	bad := runBridge(t, addr, "answer", ids[0], "7")
	if bad.code != cmdline.ExitBadInput || !strings.Contains(bad.stderr, "7 is not an option here: choose 1–2") {
		t.Fatalf("answer 7: exit %d, %s", bad.code, bad.stderr)
	}
	ok := runBridge(t, addr, "answer", ids[0], "2")
	if ok.code != 0 || strings.TrimSpace(ok.stdout) != "Recorded: SQLite" {
		t.Fatalf("answer 2: exit %d, %q %q", ok.code, ok.stdout, ok.stderr)
	}
	if code := ask.wait(t, 20*time.Second); code != cmdline.ExitOK {
		t.Fatalf("ask exit %d: %s", code, ask.errb.String())
	}
	res := decodeResult(t, ask.out.String())
	if res.Status != "answered" || res.Answers["Which database should the service use?"].Selected[0] != "SQLite" || res.AnsweredBy.Channel != "cli" {
		t.Fatalf("ask printed %s", ask.out.String())
	}
	again := runBridge(t, addr, "answer", ids[0], "1")
	if again.code != cmdline.ExitFailure || !strings.Contains(again.stderr, "Already answered by local") {
		t.Fatalf("second answer: exit %d, %s", again.code, again.stderr)
	}
}

// Exit codes of ask for each outcome.
func TestProcessExitCodes(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	decline := startBridge(t, addr, "ask", "--session", "s", "May I delete the cache?")
	id := waitPending(t, addr, 1)[0]
	if r := runBridge(t, addr, "decline", id, "not", "today"); r.code != 0 {
		t.Fatalf("decline: %d %s", r.code, r.stderr)
	}
	if code := decline.wait(t, 20*time.Second); code != cmdline.ExitDeclined {
		t.Fatalf("declined ask exit %d, want %d", code, cmdline.ExitDeclined)
	}
	if res := decodeResult(t, decline.out.String()); res.Reason != "not today" {
		t.Fatalf("reason %q", res.Reason)
	}
	cancel := startBridge(t, addr, "ask", "--session", "s2", "Proceed?")
	waitPending(t, addr, 1)
	if r := runBridge(t, addr, "cancel", "--session", "s2", "--reason", "moved on"); r.code != 0 || !strings.Contains(r.stdout, "cancelled 1") {
		t.Fatalf("cancel: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if code := cancel.wait(t, 20*time.Second); code != cmdline.ExitCancelled {
		t.Fatalf("cancelled ask exit %d, want %d", code, cmdline.ExitCancelled)
	}
	unsupported := runBridge(t, addr, "ask", "--route", "nowhere", "Anyone?")
	if unsupported.code != cmdline.ExitUnsupported || !strings.Contains(unsupported.stdout, `no route named \"nowhere\"`) {
		t.Fatalf("unsupported: exit %d %s", unsupported.code, unsupported.stdout)
	}
	bad := runBridge(t, addr, "ask", "--option", "Only one", "Pick?")
	if bad.code != cmdline.ExitBadInput || !strings.Contains(bad.stderr, "options: give no options (free text) or 2–4 options, got 1") {
		t.Fatalf("bad input: exit %d %s", bad.code, bad.stderr)
	}
	pending := runBridge(t, addr, "ask", "--pending", "Later?")
	if pending.code != 0 || decodeResult(t, pending.stdout).Status != "pending" {
		t.Fatalf("pending: %d %s", pending.code, pending.stdout)
	}
}

// kill -9 with pending questions: after a restart they are listed and
// answerable, and a blocked `bridge ask` re-attaches and gets its answer.
func TestProcessKill9KeepsPendingQuestions(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	srv := startServe(t, addr, nil, "--data-dir", dir)
	blocked := startBridge(t, addr, "ask", "--option", "Yes", "--option", "No", "Ship it?")
	other := runBridge(t, addr, "ask", "--pending", "--timeout", "2h", "Rename the repo?")
	ids := waitPending(t, addr, 2)
	srv.kill()
	time.Sleep(300 * time.Millisecond) // the blocked client notices and starts re-attaching
	startServe(t, addr, nil, "--data-dir", dir)
	after := waitPending(t, addr, 2)
	slices.Sort(ids)
	slices.Sort(after)
	if !slices.Equal(ids, after) {
		t.Fatalf("pending before %v, after restart %v", ids, after)
	}
	otherID := decodeResult(t, other.stdout).ID
	for _, id := range after {
		choice := "1"
		if id == otherID {
			choice = "other keep the name"
		}
		if r := runBridge(t, addr, "answer", id, choice); r.code != 0 {
			t.Fatalf("answer %s after restart: %d %s", id, r.code, r.stderr)
		}
	}
	if code := blocked.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("re-attached ask exit %d: %s", code, blocked.errb.String())
	}
	if res := decodeResult(t, blocked.out.String()); res.Answers["Ship it?"].Selected[0] != "Yes" {
		t.Fatalf("re-attached ask printed %s", blocked.out.String())
	}
	w := runBridge(t, addr, "wait", otherID)
	if w.code != 0 || decodeResult(t, w.stdout).Answers["Rename the repo?"].CustomText != "keep the name" {
		t.Fatalf("wait: %d %s", w.code, w.stdout)
	}
}

// SIGTERM drains: a waiting agent gets 202 and re-attaches after restart.
func TestProcessGracefulStopReleasesWaiters(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	srv := startServe(t, addr, nil, "--data-dir", dir)
	blocked := startBridge(t, addr, "ask", "Keep going?")
	id := waitPending(t, addr, 1)[0]
	srv.stop(t)
	if !strings.Contains(srv.out.String(), "releasing waiting agents") {
		t.Fatalf("no drain in the log:\n%s", srv.out.String())
	}
	startServe(t, addr, nil, "--data-dir", dir)
	if r := runBridge(t, addr, "answer", id, "yes please"); r.code != 0 {
		t.Fatalf("answer: %d %s", r.code, r.stderr)
	}
	if code := blocked.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("ask exit %d", code)
	}
}

func TestServeRefusesOpenListenWithoutKeys(t *testing.T) {
	r := runBridge(t, "127.0.0.1:1", "serve", "--listen", "0.0.0.0:0", "--data-dir", t.TempDir())
	if r.code != cmdline.ExitFailure || !strings.Contains(r.stderr, "refusing to listen on 0.0.0.0:0 without agent keys") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// A port in use stops serve before it opens the store, with the way to
// choose another.
func TestServeBusyPortNamesListen(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	r := runBridge(t, "127.0.0.1:1", "serve", "--listen", busy.Addr().String(), "--data-dir", dir)
	if r.code != cmdline.ExitFailure || !strings.Contains(r.stderr, "the address is in use") || !strings.Contains(r.stderr, "--listen ADDR") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "store opened") {
		t.Fatalf("the store was opened before the port was found busy:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "askbridge.db")); err == nil {
		t.Fatal("serve created the SQLite file although it could not listen")
	}
}

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("ASKBRIDGE_TEST_AGENT_KEY", "k")
	tests := []struct {
		name, body, want string
		code             int
	}{
		{"ok", "listen: 127.0.0.1:9999\nagents:\n  - name: claude\n    key_env: ASKBRIDGE_TEST_AGENT_KEY\n", "config OK: listen 127.0.0.1:9999", 0},
		{"typo with line", "listen: 127.0.0.1:9999\nroutse:\n  default: {targets: [cli]}\n", `line 2: unknown key "routse" (did you mean "routes"?)`, cmdline.ExitBadInput},
		{"typo in a section", "listen: 127.0.0.1:9999\ntimeouts:\n  default: 30m\n  remindrs: [0.5]\n", `line 4: unknown key "remindrs" in timeouts (did you mean "reminders"?)`, cmdline.ExitBadInput},
		{"typo in a route", "routes:\n  default:\n    targts: [cli]\n", `line 3: unknown key "targts" in routes.default (did you mean "targets"?)`, cmdline.ExitBadInput},
		{"typo in a list item", "agents:\n  - nmae: a\n    key_env: ASKBRIDGE_TEST_AGENT_KEY\n", `line 2: unknown key "nmae" in agents[0] (did you mean "name"?)`, cmdline.ExitBadInput},
		{"wrong type", "mcp:\n  enabled: maybe\n", `line 2: mcp.enabled must be true or false, got "maybe"`, cmdline.ExitBadInput},
		{"list for text", "log:\n  level: [debug, info]\n", "line 2: log.level must be text, got a list", cmdline.ExitBadInput},
		{"every yaml problem at once", "timeouts:\n  remindrs: [0.5]\nlog:\n  levle: info\n", "2 problems:\n  line 2: unknown key \"remindrs\" in timeouts (did you mean \"reminders\"?)\n  line 4: unknown key \"levle\" in log (did you mean \"level\"?)", cmdline.ExitBadInput},
		{"unset key env", "agents:\n  - name: a\n    key_env: ASKBRIDGE_TEST_UNSET_VAR\n", "agents[0].key_env: environment variable ASKBRIDGE_TEST_UNSET_VAR is not set", cmdline.ExitBadInput},
		{"unknown channel", "routes:\n  default: {targets: [pigeon:42]}\n", `routes.default.targets[0]: channel "pigeon" is not configured`, cmdline.ExitBadInput},
		{"no default route", "routes:\n  ops: {targets: [cli]}\n", `a route named "default" is required`, cmdline.ExitBadInput},
		{"bad timeout", "timeouts:\n  default: 2s\n", "timeouts.default: must be between 10s and 7d, got 2s", cmdline.ExitBadInput},
		{"bad duration", "timeouts:\n  default: soon\n", `line 2: "soon" is not a duration`, cmdline.ExitBadInput},
		{"every problem at once", "listen: nowhere\ntimezone: Mars/Olympus\nlog:\n  level: loud\nagents:\n  - name: a\n    key_env: ASKBRIDGE_TEST_UNSET_VAR\n", "4 problems:\n" +
			`  listen: "nowhere" is not host:port: address nowhere: missing port in address` + "\n" +
			`  timezone: "Mars/Olympus" is not a time zone name (e.g. UTC, Europe/Berlin)` + "\n" +
			`  log.level: "loud" is not one of debug, info, warn, error` + "\n" +
			"  agents[0].key_env: environment variable ASKBRIDGE_TEST_UNSET_VAR is not set\n" +
			"Of these, 1 unset secret: ASKBRIDGE_TEST_UNSET_VAR.", cmdline.ExitBadInput},
		{"every yaml value problem at once", "timeouts:\n  default: soon\n  batch: lots\nmcp:\n  progress_every: 1h\n", "3 problems:\n" +
			`  line 2: "soon" is not a duration (use e.g. 30s, 30m, 2h, 7d)` + "\n" +
			`  line 3: timeouts.batch: "lots" is not a whole number` + "\n" +
			"  line 5: mcp.progress_every: 1h0m0s is outside 100ms–5m", cmdline.ExitBadInput},
		{"bad reminder", "timeouts:\n  reminders: [0.5, 1.5]\n", "timeouts.reminders[1]", cmdline.ExitBadInput},
		{"bad timezone", "timezone: Mars/Olympus\n", `timezone: "Mars/Olympus" is not a time zone name`, cmdline.ExitBadInput},
		{"unset channel token", "channels:\n  slack:\n    bot_token_env: ASKBRIDGE_TEST_UNSET_SLACK\n    app_token_env: ASKBRIDGE_TEST_AGENT_KEY\n", "channels.slack.bot_token_env: environment variable ASKBRIDGE_TEST_UNSET_SLACK is not set", cmdline.ExitBadInput},
		{"redis section with sqlite driver", "store:\n  driver: sqlite\n  redis:\n    addrs: [127.0.0.1:6379]\n", "store.driver: is sqlite but store.redis names servers", cmdline.ExitBadInput},
		{"redis section implies redis", "store:\n  redis:\n    addrs: [127.0.0.1:6379]\n", "config OK: listen 127.0.0.1:8377, store redis", 0},
		{"unknown driver", "store:\n  driver: postgres\n", `store.driver: "postgres" is not sqlite or redis`, cmdline.ExitBadInput},
		{"bad store url", "store:\n  url: mysql://x\n", `store.url: "mysql://x" is not`, cmdline.ExitBadInput},
		{"bad listen", "listen: nowhere\n", `listen: "nowhere" is not host:port`, cmdline.ExitBadInput},
		{"problems of reading and of checks at once", "timeouts:\n  sweep_every: 500ms\n  batch: 0\n  default: 5s\n  reminders: [0.9, 0.5]\n", "4 problems:\n" +
			"  line 2: timeouts.sweep_every: 500ms is below the minimum of 1s\n" +
			"  line 3: timeouts.batch: 0 is outside 1–100000\n" +
			"  timeouts.reminders[1]: reminder points must increase\n" +
			"  timeouts.default: must be between 10s and 7d, got 5s\n", cmdline.ExitBadInput},
		{"a channel at the top level", "web:\n  disabled: true\n", `line 1: unknown key "web" at the top level: it belongs in the channels section (channels.web)`, cmdline.ExitBadInput},
		{"a timeout key at the top level", "reminders: [0.5]\n", `line 1: unknown key "reminders" at the top level: it belongs in the timeouts section (timeouts.reminders)`, cmdline.ExitBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBridge(t, "127.0.0.1:1", "check-config", "--config", write(tt.name+".yaml", tt.body))
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.want) {
				t.Fatalf("exit %d, output %q %q; want %d and %q", r.code, r.stdout, r.stderr, tt.code, tt.want)
			}
		})
	}
	// The file may be named as the argument, as the other commands that
	// read one take it.
	file := write("as-argument.yaml", "listen: 127.0.0.1:9999\n")
	if r := runBridge(t, "127.0.0.1:1", "check-config", file); r.code != 0 || !strings.Contains(r.stdout, "config OK: listen 127.0.0.1:9999") {
		t.Fatalf("check-config FILE: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	other := write("other.yaml", "listen: 127.0.0.1:9998\n")
	if r := runBridge(t, "127.0.0.1:1", "check-config", "--config", other, file); r.code != cmdline.ExitBadInput || !strings.Contains(r.stderr, "give the file as FILE or with --config, not both") {
		t.Fatalf("check-config --config A B: exit %d, %q", r.code, r.stderr)
	}
}
