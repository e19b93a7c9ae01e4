package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/testutil"
)

// Recorded PermissionRequest events of Claude Code and Codex, fed to the
// real `bridge hook` against a real `bridge serve`: the question people
// see, and the decision JSON printed for each way of answering it.
func TestProcessHookDecisions(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	allow := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
	deny := func(msg string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":` + jsonString(msg) + `}}}`
	}
	always := func(rule string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[` + rule + `],"behavior":"allow","destination":"localSettings"}]}}}`
	}
	claudeOpts := []string{"Allow once", "Always allow", "Allow with changes", "Deny and stop"}
	fetchOpts := []string{"Allow once", "Always allow", "Deny", "Deny and stop"}
	// A file tool's "Always allow" offers the bridge's rule for the
	// file's directory.
	editOpts := func(glob string) []string {
		return []string{"Allow once", "Always allow `" + glob + "`", "Allow with changes", "Deny and stop"}
	}
	plainOpts := []string{"Allow once", "Deny"}
	stop := func(msg string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":` + jsonString(msg) + `,"interrupt":true}}}`
	}
	tests := []struct {
		name, agent, fixture string
		answer               []string // arguments of `bridge answer ID …`, or of `bridge decline ID …` after "decline"
		options              []string
		shows, hides         []string // in the question or its context
		want                 string
	}{
		{"claude Bash allow once", "claude", "claude/bash.json", []string{"Allow once"}, claudeOpts,
			[]string{"⚠ Deletes recursively\nAllow Bash?\n$ rm -rf build && GITHUB_TOKEN=*** make release", "Reason: Clean the build directory and cut a release", "Directory: /home/ana/shop", "(permission mode default)"},
			[]string{"ghp_"}, allow},
		{"claude Bash always allow", "claude", "claude/bash.json", []string{"Always allow"}, claudeOpts,
			[]string{"Adds allow rule Bash(make release:*) to .claude/settings.local.json"}, nil,
			always(`{"toolName":"Bash","ruleContent":"make release:*"}`)},
		{"claude Bash deny and stop", "claude", "claude/bash.json", []string{"Deny and stop"}, claudeOpts,
			[]string{"Deny and stop: Refuse and stop the agent: it waits for you at the terminal; type a message instead to refuse and let it go on"}, nil,
			stop("Denied in chat by local.")},
		{"claude Bash allow with changes", "claude", "claude/bash.json", []string{"--", "3", "other", "rm", "-rf", "build/tmp", "&&", "make", "release"}, claudeOpts, nil, nil,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":` +
				`{"command":"rm -rf build/tmp && make release","description":"Clean the build directory and cut a release"}}}}`},
		{"claude Bash other text denies with it", "claude", "claude/bash.json", []string{"other", "build into a temp dir instead"}, claudeOpts, nil, nil,
			deny("Denied in chat by local: build into a temp dir instead")},
		{"claude Bash declined", "claude", "claude/bash.json", []string{"decline", "not", "today"}, claudeOpts, nil, nil,
			deny("Declined in chat by local: not today")},
		// Before accept edits: the rule that makes allows this call.
		{"claude Edit allow once", "claude", "claude/edit.json", []string{"1"}, editOpts("internal/cart/*"),
			[]string{"Allow Edit?\nFile: /home/ana/shop/internal/cart/total.go\n  … (3 unchanged lines)\n- \t\tsum += it.Price\n+ \t\tsum += it.Price * it.Quantity\n  … (3 unchanged lines)"}, nil, allow},
		{"claude Edit accept edits", "claude", "claude/edit.json", []string{"2"}, editOpts("internal/cart/*"),
			[]string{"Always allow `internal/cart/*`: Always allow `internal/cart/*` in this project (/home/ana/shop); also accept edits for this session"}, nil,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}`},
		{"claude Write deny with a note", "claude", "claude/write.json", []string{"4", "other", "keep", "secrets", "out", "of", "the", "repo"}, editOpts("deploy/*"),
			[]string{"⚠ shortened: 89 more characters — the full file content is attached below\nAllow Write?\nFile: /home/ana/shop/deploy/.env.production\n# production settings",
				"DATABASE_URL=postgres://shop:***@db.internal:5432/shop", "STRIPE_SECRET_KEY=***", "… (+4 more lines)", "Full file content:\n# production settings\n", "MAX_UPLOAD_MB=25"},
			[]string{"Sup3rS3cret", "sk_live"}, stop("Denied in chat by local: keep secrets out of the repo")},
		{"claude WebFetch always allow", "claude", "claude/webfetch.json", []string{"Always allow"}, fetchOpts,
			[]string{"Allow WebFetch?\nURL: https://docs.stripe.com/api/refunds/create\nPrompt: List the parameters", "Adds allow rule WebFetch(domain:docs.stripe.com)"}, nil,
			always(`{"toolName":"WebFetch","ruleContent":"domain:docs.stripe.com"}`)},
		{"claude MCP tool allow once", "claude", "claude/mcp.json", []string{"Allow once"}, fetchOpts,
			[]string{"Allow MCP tool create_issue of server github?\nArguments: {", `"auth_token":"***"`, `"title":"Cart total ignores quantity"`, "Adds allow rule mcp__github__create_issue to"},
			[]string{"ghp_"}, allow},
		{"codex Bash allow once", "codex", "codex/bash.json", []string{"Allow once"}, plainOpts,
			[]string{"⚠ Rewrites git history or discards commits\nAllow Bash?\n$ git push --force-with-lease origin main", "Reason: Push the rebased branch", "Codex asks for permission."}, nil, allow},
		{"codex apply_patch other text", "codex", "codex/apply_patch.json", []string{"other", "keep the tests in a separate change"}, plainOpts,
			[]string{"Allow apply_patch?\nFiles: update internal/cart/total.go, add internal/cart/total_test.go", "+\t\tsum += it.Price * it.Quantity"}, nil,
			deny("Denied in chat by local: keep the tests in a separate change")},
		{"codex MCP tool deny", "codex", "codex/mcp.json", []string{"Deny"}, plainOpts,
			[]string{"Allow MCP tool create_issue of server linear?", `"api_key":"***"`, `"priority":2`}, []string{"lin_api"}, deny("Denied in chat by local.")},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := fmt.Sprintf("sess-%d", i)
			session := tt.agent + ":" + sid
			hook := startHook(t, addr, hookFixture(t, tt.fixture, sid), tt.agent, "--timeout", "2m")
			id := waitingFor(t, hook)
			q := questionByID(t, addr, session, id)
			p := q.Questions[0]
			var labels []string
			for _, o := range p.Options {
				labels = append(labels, o.Label)
			}
			if !slices.Equal(labels, tt.options) {
				t.Errorf("options %q, want %q", labels, tt.options)
			}
			seen := p.Question + "\n" + strings.Join(optionTexts(p.Options), "\n") + "\n" + contextOf(t, addr, id)
			for _, s := range append(tt.shows, "Session: "+session) {
				if !strings.Contains(seen, s) {
					t.Errorf("question does not show %q:\n%s", s, seen)
				}
			}
			for _, s := range tt.hides {
				if strings.Contains(seen, s) {
					t.Errorf("question shows %q:\n%s", s, seen)
				}
			}
			args := append([]string{"answer", id}, tt.answer...)
			if tt.answer[0] == "decline" {
				args = append([]string{"decline", id}, tt.answer[1:]...)
			}
			if r := runBridge(t, addr, args...); r.code != 0 {
				t.Fatalf("%v: exit %d %s", args, r.code, r.stderr)
			}
			out, errOut, code := hookResult(t, hook)
			if code != 0 || !sameJSON(t, out, tt.want) {
				t.Fatalf("hook exit %d, printed\n%s\nwant\n%s\nstderr: %s", code, out, tt.want, errOut)
			}
		})
	}
}

func optionTexts(opts []client.Option) []string {
	var out []string
	for _, o := range opts {
		out = append(out, o.Label+": "+o.Description)
	}
	return out
}

// contextOf reads the context shown with an open question, as the web
// inbox shows it.
func contextOf(t *testing.T, addr, id string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/inbox/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Open []struct {
			ID      string `json:"id"`
			Context string `json:"context"`
		} `json:"open"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	for _, q := range st.Open {
		if q.ID == id {
			return q.Context
		}
	}
	t.Fatalf("question %s is not open in the web inbox", id)
	return ""
}

// Claude Code's AskUserQuestion through its PreToolUse hook: the dialog is
// asked in chat, and the answers come back in updatedInput, keyed by
// question text, multi-select labels joined with ", ".
func TestProcessHookClaudeAskUserQuestion(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	var fixture struct {
		ToolUseID string          `json:"tool_use_id"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	event := hookFixture(t, "claude/ask.json", "ask-1")
	if err := json.Unmarshal(event, &fixture); err != nil {
		t.Fatal(err)
	}
	hook := startHook(t, addr, event, "claude", "--timeout", "2m")
	id := waitingFor(t, hook)
	q := questionByID(t, addr, "claude:ask-1", id)
	if q.ToolCallID != fixture.ToolUseID || len(q.Questions) != 2 || q.Questions[1].Header != "Checks" || !q.Questions[1].MultiSelect || q.Questions[0].Options[1].Label != "SQLite" {
		t.Fatalf("asked %+v", q)
	}
	for _, choice := range []string{"2", "1,3"} {
		if r := runBridge(t, addr, "answer", id, choice); r.code != 0 {
			t.Fatalf("answer %s: %d %s", choice, r.code, r.stderr)
		}
	}
	out, errOut, code := hookResult(t, hook)
	var got struct {
		HookSpecificOutput struct {
			HookEventName            string         `json:"hookEventName"`
			PermissionDecision       string         `json:"permissionDecision"`
			PermissionDecisionReason string         `json:"permissionDecisionReason"`
			UpdatedInput             map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("exit %d, printed %q, stderr %q", code, out, errOut)
	}
	var input map[string]any
	_ = json.Unmarshal(fixture.ToolInput, &input)
	input["answers"] = map[string]any{
		"Which database should the service use?":      "SQLite",
		"Which checks should run before each commit?": "Unit tests, Formatter",
	}
	h := got.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.PermissionDecision != "allow" || h.PermissionDecisionReason != "Answered in chat by local" || !reflect.DeepEqual(h.UpdatedInput, input) {
		t.Fatalf("printed %s", out)
	}

	// A declined dialog denies the tool call, with the person's words for
	// the model.
	hook = startHook(t, addr, hookFixture(t, "claude/ask.json", "ask-2"), "claude", "--timeout", "2m")
	id = waitingFor(t, hook)
	if r := runBridge(t, addr, "decline", id, "pick", "it", "yourself"); r.code != 0 {
		t.Fatalf("decline: %d %s", r.code, r.stderr)
	}
	out, _, code = hookResult(t, hook)
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"local declined to answer in chat: pick it yourself"}}`
	if code != 0 || compactJSONString(t, out) != want {
		t.Fatalf("exit %d, printed %s", code, out)
	}
}

// The installed command, run by a shell as the agent runs it, is this
// bridge's hook: it asks, and prints the decision.
func TestProcessHookInstalledCommandRuns(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	home := t.TempDir()
	install := bridgeCmd(t, addr, "hook", "install", "claude")
	install.Env = append(install.Env, "HOME="+home)
	out, err := install.CombinedOutput()
	settings := filepath.Join(home, ".claude", "settings.json")
	if err != nil || !strings.Contains(string(out), settings+": added PermissionRequest hook") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(readFile(t, settings)), &s); err != nil {
		t.Fatal(err)
	}
	command := s.Hooks["PermissionRequest"][0].Hooks[0].Command
	if command != bridgeBinary(t)+" hook claude" {
		t.Fatalf("installed command %q, want the binary's path + \" hook claude\"", command)
	}
	sh := bridgeCmd(t, addr)
	sh.Path, sh.Args = "/bin/sh", []string{"sh", "-c", command}
	sh.Stdin = bytes.NewReader(hookFixture(t, "claude/webfetch.json", "installed"))
	bg := &background{cmd: sh, out: &testutil.Buffer{}, errb: &testutil.Buffer{}, done: make(chan int, 1)}
	sh.Stdout, sh.Stderr = bg.out, bg.errb
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = sh.Wait(); bg.done <- sh.ProcessState.ExitCode() }()
	t.Cleanup(func() { _ = sh.Process.Kill() })
	id := waitingFor(t, bg)
	if r := runBridge(t, addr, "answer", id, "Allow once"); r.code != 0 {
		t.Fatalf("answer: %d %s", r.code, r.stderr)
	}
	stdout, stderr, code := hookResult(t, bg)
	if code != 0 || !sameJSON(t, stdout, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`) {
		t.Fatalf("installed hook: exit %d, printed %q, stderr %q", code, stdout, stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonString is s as a JSON string, with <, > and & unescaped as the hook
// prints them.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
