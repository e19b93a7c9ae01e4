package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// elicitationFixture is the recorded Elicitation event with session sid,
// its bytes otherwise as recorded: the order of the form's properties is
// the order of its prompts (hookFixture writes keys sorted).
func elicitationFixture(t *testing.T, sid string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", "claude", "elicitation.json"))
	if err != nil {
		t.Fatal(err)
	}
	const recorded = `"session_id": "8c1f4b2e-3d6a-4f0e-9b7c-2a5d1e8f6c30"`
	if !strings.Contains(string(data), recorded) {
		t.Fatalf("elicitation.json lacks %s", recorded)
	}
	return []byte(strings.Replace(string(data), recorded, `"session_id": "`+sid+`"`, 1))
}

// Claude Code's Elicitation event, fed to the real `bridge hook claude`
// against a real `bridge serve`: the other MCP server's form is asked as
// a dialog of typed prompts, `bridge answer` answers it (a wrong value
// refused with the rule), and the hook prints accept with the content
// typed as the form's schema types it; a declined form prints decline.
func TestProcessHookClaudeElicitation(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	hook := startHook(t, addr, elicitationFixture(t, "elicit-1"), "claude", "--timeout", "2m")
	id := waitingFor(t, hook)
	q := questionByID(t, addr, "claude:elicit-1", id)
	var asked []string
	for _, p := range q.Questions {
		f := "no field"
		if p.Field != nil {
			f = string(p.Field.Type)
		}
		asked = append(asked, p.Question+":"+f)
	}
	if got := strings.Join(asked, ", "); got != "Region:enum, Port:integer, Public:boolean, Checks:multi_enum" {
		t.Fatalf("asked %s", got)
	}
	if labels := q.Questions[0].Options; len(labels) != 2 || labels[0].Label != "Europe" || labels[1].Label != "United States" {
		t.Fatalf("region options %+v", labels)
	}
	ctx := contextOf(t, addr, id)
	for _, s := range []string{"The MCP server deploy asks, through Claude Code:\nWhere should the preview environment run?", "Required: Region, Port", "Session: claude:elicit-1"} {
		if !strings.Contains(ctx, s) {
			t.Errorf("context does not show %q:\n%s", s, ctx)
		}
	}
	if r := runBridge(t, addr, "answer", id+".2", "80"); r.code == 0 || !strings.Contains(r.stderr, "whole number from 1024 to 65535") {
		t.Fatalf("port 80: exit %d, stderr %q; want a refusal with the rule", r.code, r.stderr)
	}
	for _, a := range [][]string{{id + ".1", "Europe"}, {id + ".2", "8443"}, {id + ".3", "yes"}, {id + ".4", "1,3"}} {
		if r := runBridge(t, addr, append([]string{"answer"}, a...)...); r.code != 0 {
			t.Fatalf("answer %v: exit %d %s", a, r.code, r.stderr)
		}
	}
	out, errOut, code := hookResult(t, hook)
	want := `{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"region":"eu-west-1","port":8443,"public":true,"checks":["smoke","security"]}}}`
	if code != 0 || compactJSONString(t, out) != want {
		t.Fatalf("exit %d, printed %s, want %s; stderr %s", code, out, want, errOut)
	}
	var typed struct {
		HookSpecificOutput struct {
			Content map[string]any `json:"content"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &typed); err != nil {
		t.Fatal(err)
	}
	if _, ok := typed.HookSpecificOutput.Content["port"].(float64); !ok {
		t.Fatalf("port is %T, want a JSON number", typed.HookSpecificOutput.Content["port"])
	}

	hook = startHook(t, addr, elicitationFixture(t, "elicit-2"), "claude", "--timeout", "2m")
	id = waitingFor(t, hook)
	if r := runBridge(t, addr, "decline", id, "use", "the", "staging", "cluster"); r.code != 0 {
		t.Fatalf("decline: %d %s", r.code, r.stderr)
	}
	out, _, code = hookResult(t, hook)
	if want := `{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"decline"}}`; code != 0 || compactJSONString(t, out) != want {
		t.Fatalf("exit %d, printed %s, want %s", code, out, want)
	}
}
