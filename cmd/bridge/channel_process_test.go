package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestProcessChannelVerdicts: `bridge channel` as Claude Code spawns it.
// It declares the channel capabilities; a relayed prompt becomes a
// question people see as relayed from the terminal, with the preview
// Claude Code sent; each way of answering it, through `bridge answer`,
// `bridge decline` or POST /v1/commands, sends one verdict with the
// prompt's request id, and a person's words reach Claude as an event.
func TestProcessChannelVerdicts(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	p := startChannel(t, addr, "channel-verdicts")
	ir := p.cs.InitializeResult()
	caps, _ := json.Marshal(ir.Capabilities.Experimental)
	if string(caps) != `{"claude/channel":{},"claude/channel/permission":{}}` {
		t.Errorf("experimental capabilities %s, want claude/channel and claude/channel/permission", caps)
	}
	if !strings.Contains(ir.Instructions, "permission prompts") || !strings.Contains(ir.Instructions, "reply tool") || ir.Capabilities.Tools == nil {
		t.Errorf("instructions %q, tools %+v: want instructions naming the reply tool, and tools", ir.Instructions, ir.Capabilities.Tools)
	}
	api := client.New("http://"+addr, "")
	tests := []struct {
		name, request, tool, preview string
		question                     string
		answer                       func(id string)
		behavior, note               string
	}{
		{"allow once", "tbxkq", "Bash", `{"command":"npm test","description":"Run the tests"}`, "Claude Code asks: allow Bash?\n$ npm test",
			func(id string) { mustRun(t, addr, "answer", id, "Allow once") }, "allow", ""},
		{"deny", "abcde", "Write", `{"file_path":"/srv/shop/.env","content":"STRIPE_SECRET_KEY=sk_live_9"}`, "Claude Code asks: allow Write?\nFile: /srv/shop/.env\nSTRIPE_SECRET_KEY=***",
			func(id string) { mustRun(t, addr, "answer", id, "Deny") }, "deny", ""},
		{"typed text through POST /v1/commands", "fghij", "Bash", `{"command":"rm -rf build"}`, "Claude Code asks: allow Bash?\n$ rm -rf build",
			func(id string) { command(t, api, "/answer "+id+" build into a temp dir instead") }, "deny", "Denied in chat by local: build into a temp dir instead"},
		{"declined", "mnopq", "WebFetch", `{"url":"https://example.com/a","prompt":"Summarise"}`, "Claude Code asks: allow WebFetch?\nURL: https://example.com/a\nPrompt: Summarise",
			func(id string) { mustRun(t, addr, "decline", id, "not", "today") }, "deny", "Declined in chat by local: not today"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.prompt(tt.request, tt.tool, "Claude wants to "+tt.tool, tt.preview)
			q := p.questionFor(addr, tt.request)
			if q.Status != client.StatusPending || q.Questions[0].Question != tt.question {
				t.Fatalf("question %s %q, want pending %q", q.Status, q.Questions[0].Question, tt.question)
			}
			ctx := contextOf(t, addr, q.ID)
			for _, s := range []string{"Relayed from Claude Code's terminal", "Description: Claude wants to " + tt.tool, "Request: " + tt.request} {
				if !strings.Contains(ctx, s) {
					t.Errorf("context does not show %q:\n%s", s, ctx)
				}
			}
			tt.answer(q.ID)
			if got := p.verdict(tt.request); got != tt.behavior {
				t.Fatalf("verdict %q, want %q", got, tt.behavior)
			}
			time.Sleep(300 * time.Millisecond) // room for a second verdict, or the note
			notes := p.notesFor(tt.request)
			wantNotes := 1
			if tt.note != "" {
				wantNotes = 2
			}
			if len(notes) != wantNotes {
				t.Fatalf("%d notifications about %s, want %d: %+v", len(notes), tt.request, wantNotes, notes)
			}
			if tt.note != "" {
				ev := notes[1]
				if ev.Method != "notifications/claude/channel" || ev.Params.Content != tt.note || ev.Params.Meta["behavior"] != "deny" || ev.Params.Meta["tool"] != tt.tool {
					t.Fatalf("event %+v, want the note %q", ev, tt.note)
				}
			}
		})
	}
}

// TestProcessChannelTwoPrompts: two prompts open at once are two
// questions, each answered on its own, in any order; a prompt repeated
// while it is open asks nothing more; a verdict that comes after the
// terminal answered is still sent, once.
func TestProcessChannelTwoPrompts(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	p := startChannel(t, addr, "channel-two")
	p.prompt("aaaaa", "Bash", "Build", `{"command":"make build"}`)
	p.prompt("bbbbb", "Bash", "Deploy", `{"command":"make deploy"}`)
	p.prompt("aaaaa", "Bash", "Build", `{"command":"make build"}`)
	first, second := p.questionFor(addr, "aaaaa"), p.questionFor(addr, "bbbbb")
	mustRun(t, addr, "answer", second.ID, "Deny")
	if got := p.verdict("bbbbb"); got != "deny" {
		t.Fatalf("second prompt: verdict %q, want deny", got)
	}
	if n := p.notesFor("aaaaa"); len(n) != 0 {
		t.Fatalf("the first prompt got %+v before anyone answered it", n)
	}
	// Claude Code would have moved on by now (the terminal answered):
	// the verdict is sent all the same, and ignored there.
	mustRun(t, addr, "answer", first.ID, "Allow once")
	if got := p.verdict("aaaaa"); got != "allow" {
		t.Fatalf("first prompt: verdict %q, want allow", got)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(p.notesFor("aaaaa")) + len(p.notesFor("bbbbb")); n != 2 {
		t.Fatalf("%d verdicts, want one per prompt", n)
	}
	if qs := questionsOf(t, addr, p.session, ""); len(qs) != 2 {
		t.Fatalf("%d questions for two prompts, one repeated: want 2", len(qs))
	}
}

// TestProcessChannelBadPrompts: a permission_request that cannot be
// relayed asks nobody and says why on standard error; the channel goes on
// relaying the next one.
func TestProcessChannelBadPrompts(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	p := startChannel(t, addr, "channel-bad")
	tests := []struct {
		name   string
		params any
		says   string
	}{
		{"no request id", map[string]any{"tool_name": "Bash", "description": "x", "input_preview": "{}"}, "request_id: missing"},
		{"request id with spaces", map[string]any{"request_id": "ab cd", "tool_name": "Bash"}, `request_id: \"ab cd\" is not an id`},
		{"no tool name", map[string]any{"request_id": "vwxyz", "description": "x"}, "tool_name: missing"},
		{"params not an object", "yes vwxyz", "params are not an object"},
		{"a field of the wrong type", map[string]any{"request_id": 12345, "tool_name": "Bash"}, "params are not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.raw(tt.params)
			until(t, "the warning", func() bool { return strings.Contains(p.stderr.String(), tt.says) })
		})
	}
	p.prompt("kkkkk", "Bash", "List", `{"command":"ls"}`)
	p.questionFor(addr, "kkkkk")
	if qs := questionsOf(t, addr, p.session, ""); len(qs) != 1 {
		t.Fatalf("%d questions after %d bad prompts and a good one, want 1", len(qs), len(tests))
	}
}

// channelPeopleConfig gives the route ops one responder, Ana; Bo is a
// person of the directory but not on that route.
const channelPeopleConfig = `
people:
  - id: ana
    name: Ana Lima
    accounts: ["cli:ana"]
  - id: bo
    name: Bo Chen
    accounts: ["cli:bo"]
routes:
  default:
    targets: [web, cli]
  ops:
    targets: [web, cli]
    responders: ["person:ana"]
`

// TestProcessChannelResponders: on a route with responders, a person not
// on it is refused and no verdict is sent; the responder's answer sends
// it, naming her.
func TestProcessChannelResponders(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	cfg := writeConfig(t, dir, channelPeopleConfig)
	startServe(t, addr, nil, "--config", cfg, "--data-dir", dir)
	p := startChannel(t, addr, "channel-ops", "--route", "ops")
	p.prompt("qrstu", "Bash", "Restart the API", `{"command":"systemctl restart api"}`)
	q := p.questionFor(addr, "qrstu")
	if q.Route != "ops" {
		t.Fatalf("question on route %q, want ops", q.Route)
	}
	ok, reply := commandAs(t, addr, "bo", "/answer "+q.ID+" Allow once")
	if ok || !strings.Contains(reply, "You are not one of the people asked to answer") {
		t.Fatalf("Bo's answer: ok %v, %q; want refused", ok, reply)
	}
	time.Sleep(time.Second)
	if n := p.notesFor("qrstu"); len(n) != 0 {
		t.Fatalf("after Bo's refused answer: %+v, want no verdict", n)
	}
	if ok, reply := commandAs(t, addr, "ana", "/answer "+q.ID+" Allow once"); !ok {
		t.Fatalf("Ana's answer refused: %q", reply)
	}
	if got := p.verdict("qrstu"); got != "allow" {
		t.Fatalf("verdict %q, want allow", got)
	}
	// The server logs the verdict once Claude Code's side has it: wait
	// for the line rather than read the log once.
	until(t, "the channel's log naming Ana", func() bool { return strings.Contains(p.stderr.String(), "by=person:ana") })
}

// TestProcessChannelEnds: the question of a prompt nobody answered ends
// with the channel server. When Claude Code closes the session the server
// cancels it and exits 0; when the server is killed, the bridge cancels
// it once the lease (5s here) lapses. Either way people see that the
// asking agent is gone, and no verdict was sent.
func TestProcessChannelEnds(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	const lease = 5 * time.Second
	tests := []struct {
		name   string
		end    func(p *channelPeer)
		within time.Duration
	}{
		{"session closed", func(p *channelPeer) { _ = p.cs.Close() }, 5 * time.Second},
		{"killed", func(p *channelPeer) { _ = p.cmd.Process.Kill() }, lease + 3*time.Second},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startChannel(t, addr, fmt.Sprintf("channel-end-%d", i), "--lease", lease.String())
			p.prompt("zzzzz", "Bash", "Migrate", `{"command":"make migrate"}`)
			q := p.questionFor(addr, "zzzzz")
			time.Sleep(lease) // the lease has been renewed at least once
			if q = p.questionFor(addr, "zzzzz"); q.Status != client.StatusPending {
				t.Fatalf("while the server runs the question is %s (%q)", q.Status, q.Reason)
			}
			start := time.Now()
			tt.end(p)
			// Watch through the list: a GET by the agent renews the lease.
			until(t, "the question to end", func() bool {
				q = p.questionFor(addr, "zzzzz")
				return q.Status != client.StatusPending
			})
			if took := time.Since(start); took > tt.within {
				t.Errorf("cancelled after %s, want within %s", took.Round(100*time.Millisecond), tt.within)
			}
			if q.Status != client.StatusCancelled || !strings.Contains(q.Reason, "the asking agent is gone") {
				t.Fatalf("question %s (%q), want cancelled: the asking agent is gone", q.Status, q.Reason)
			}
			if tt.name == "session closed" {
				select {
				case <-p.exited:
					if c := p.cmd.ProcessState.ExitCode(); c != 0 {
						t.Fatalf("exit %d after the session closed, want 0", c)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("bridge channel still runs 10s after its standard input closed")
				}
			}
			if n := p.notesFor("zzzzz"); len(n) != 0 {
				t.Fatalf("notifications %+v, want none", n)
			}
		})
	}
}

// mustRun runs a bridge command and fails the test unless it exits 0.
func mustRun(t *testing.T, addr string, args ...string) {
	t.Helper()
	if r := runBridge(t, addr, args...); r.code != 0 {
		t.Fatalf("bridge %v: exit %d: %s", args, r.code, r.stderr)
	}
}

// commandAs sends a text command on the cli channel as user, through
// POST /v1/commands (a loopback bridge without responder keys takes the
// user from the request).
func commandAs(t *testing.T, addr, user, text string) (bool, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"channel": "cli", "user": user, "text": text})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://"+addr+"/v1/commands", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		OK    bool   `json:"ok"`
		Reply string `json:"reply"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST /v1/commands: %d: %v", resp.StatusCode, err)
	}
	return out.OK, out.Reply
}
