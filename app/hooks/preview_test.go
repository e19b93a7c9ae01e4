package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/client"
)

func TestCutText(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{strings.Repeat("x", 100), 100, strings.Repeat("x", 100)},
		{strings.Repeat("x", 500), 100, strings.Repeat("x", 84) + "… (+416 chars)"},
		{strings.Repeat("é", 50), 20, "éééé… (+46 chars)"},
	}
	for _, tt := range tests {
		got := cutText(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("cutText(%d runes, %d) = %q, want %q", len([]rune(tt.in)), tt.n, got, tt.want)
		}
		if n := len([]rune(got)); n > tt.n {
			t.Errorf("cutText to %d gave %d characters", tt.n, n)
		}
	}
}

func TestToolPreview(t *testing.T) {
	long := strings.Repeat("a", 2000)
	tests := []struct {
		tool, input   string
		subject, body string
	}{
		{"Bash", `{"command":"npm test","description":"Run the tests"}`, "Bash", "$ npm test"},
		{"Bash", `{"command":"` + long + `"}`, "Bash", "$ " + strings.Repeat("a", 1199) + "…"},
		{"Edit", `{"file_path":"/p/a.go","old_string":"x := 1","new_string":"x := 2","replace_all":true}`, "Edit",
			"File: /p/a.go\n- x := 1\n+ x := 2\n(every occurrence)"},
		{"MultiEdit", `{"file_path":"/p/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"},{"old_string":"e","new_string":"f"},{"old_string":"g","new_string":"h"},{"old_string":"i","new_string":"j"}]}`, "MultiEdit",
			"File: /p/a.go\n- a\n+ b\n- c\n+ d\n- e\n+ f\n… (+2 more edits)"},
		{"Edit", `{"file_path":"/p/a.go","old_string":"` + strings.Repeat(`l\n`, 12) + `","new_string":""}`, "Edit",
			"File: /p/a.go\n" + strings.Repeat("- l\n", 8) + "- … (+4 more lines)\n  … (1 unchanged line)"},
		{"Write", `{"file_path":"/p/n.txt","content":"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n"}`, "Write",
			"File: /p/n.txt\n1\n2\n3\n4\n5\n6\n7\n8\n… (+3 more lines)"},
		{"NotebookEdit", `{"notebook_path":"/p/a.ipynb","cell_id":"c1","new_source":"print(1)"}`, "NotebookEdit",
			"Notebook: /p/a.ipynb\nCell: c1\nprint(1)"},
		{"WebSearch", `{"query":"go 1.26 release notes"}`, "WebSearch", "Search: go 1.26 release notes"},
		{"Glob", `{"pattern":"**/*.go","path":"/etc"}`, "Glob", "Pattern: **/*.go\nPath: /etc"},
		{"ExitPlanMode", `{"plan":"1. Fix\n2. Test"}`, "ExitPlanMode", "1. Fix\n2. Test"},
		{"mcp__stripe__create_refund", `{"charge":"ch_1","amount":1500,"api_key":"sk_live_1"}`, "MCP tool create_refund of server stripe",
			`Arguments: {"amount":1500,"api_key":"***","charge":"ch_1"}`},
		{"Task", `{"prompt":"find <all> & fix","subagent_type":"Explore"}`, "Task", `Arguments: {"prompt":"find <all> & fix","subagent_type":"Explore"}`},
		{"apply_patch", `{"command":"*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"}`, "apply_patch", "Files: delete old.txt"},
		{"Bash", `not json`, "Bash", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			subject, body := toolPreview(tt.tool, json.RawMessage(tt.input))
			if subject != tt.subject || body != tt.body {
				t.Fatalf("toolPreview(%s)\n got %q\n     %q\nwant %q\n     %q", tt.tool, subject, body, tt.subject, tt.body)
			}
			if n := len([]rune(body)); n > previewMax {
				t.Fatalf("preview of %d characters", n)
			}
		})
	}
}

// The same call gives the same key however the agent spaced and ordered
// its JSON; another input gives another key.
func TestInputDigest(t *testing.T) {
	a := inputDigest("Bash", json.RawMessage(`{"command":"ls","timeout":120000}`))
	b := inputDigest("Bash", json.RawMessage("{ \"timeout\": 120000,\n  \"command\": \"ls\" }"))
	c := inputDigest("Bash", json.RawMessage(`{"command":"ls -a","timeout":120000}`))
	d := inputDigest("Write", json.RawMessage(`{"command":"ls","timeout":120000}`))
	if a != b || a == c || a == d || len(a) != 64 {
		t.Fatalf("digests %s %s %s %s", a, b, c, d)
	}
}

// Only a person's act decides; a timeout, a cancel or a skip leaves the
// decision to the agent's own dialog.
func TestReadVerdict(t *testing.T) {
	const q = "Allow Bash?"
	ana := &client.Responder{Channel: "slack", User: "U1", Name: "ana"}
	answered := func(a client.Answer) *client.Result {
		return &client.Result{Status: client.StatusAnswered, Answers: map[string]client.Answer{q: a}, AnsweredBy: ana}
	}
	tests := []struct {
		name string
		res  *client.Result
		want permissionVerdict
		ok   bool
	}{
		{"allow once", answered(client.Answer{Selected: []string{"Allow once"}}), permissionVerdict{behavior: "allow"}, true},
		{"always allow", answered(client.Answer{Selected: []string{"always allow"}}), permissionVerdict{behavior: "allow", always: true}, true},
		{"deny", answered(client.Answer{Selected: []string{"Deny"}}), permissionVerdict{behavior: "deny", message: "Denied in chat by ana."}, true},
		{"other text", answered(client.Answer{CustomText: "use make clean"}), permissionVerdict{behavior: "deny", message: "Denied in chat by ana: use make clean"}, true},
		{"declined", &client.Result{Status: client.StatusDeclined, Reason: "not now", AnsweredBy: ana}, permissionVerdict{behavior: "deny", message: "Declined in chat by ana: not now"}, true},
		{"discuss", &client.Result{Status: client.StatusDeclined, NotReady: true, Reason: "why rm?", AnsweredBy: ana}, permissionVerdict{behavior: "deny", message: "ana wants to discuss this before deciding: why rm?"}, true},
		{"skipped", answered(client.Answer{Skipped: true}), permissionVerdict{}, false},
		{"timed out", &client.Result{Status: client.StatusTimedOut, Fallback: "none"}, permissionVerdict{}, false},
		{"cancelled", &client.Result{Status: client.StatusCancelled}, permissionVerdict{}, false},
		{"unsupported", &client.Result{Status: client.StatusUnsupported}, permissionVerdict{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := readVerdict(tt.res, q)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
