package hooks_test

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/app/hooks"
	"github.com/askbridge/askbridge/client"
)

// TestChannelPromptValidate: a prompt without a usable request id or
// tool name is refused with the field named.
func TestChannelPromptValidate(t *testing.T) {
	ok := hooks.ChannelPrompt{RequestID: "tbxkq", Tool: "Bash"}
	tests := []struct {
		name string
		edit func(p *hooks.ChannelPrompt)
		want string // in the error; "" for none
	}{
		{"valid", func(*hooks.ChannelPrompt) {}, ""},
		{"no request id", func(p *hooks.ChannelPrompt) { p.RequestID = "" }, "request_id: missing"},
		{"request id with a space", func(p *hooks.ChannelPrompt) { p.RequestID = "tb xkq" }, `request_id: "tb xkq" is not an id`},
		{"request id too long", func(p *hooks.ChannelPrompt) { p.RequestID = strings.Repeat("a", 65) }, "request_id: "},
		{"no tool", func(p *hooks.ChannelPrompt) { p.Tool = " " }, "tool_name: missing"},
		{"tool on two lines", func(p *hooks.ChannelPrompt) { p.Tool = "Bash\nWrite" }, "tool_name: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok
			tt.edit(&p)
			err := p.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestChannelPromptQuestion: what people see of a relayed prompt,
// whether the preview is whole, cut inside the JSON, or not JSON at all;
// secrets are masked.
func TestChannelPromptQuestion(t *testing.T) {
	tests := []struct {
		name                   string
		prompt                 hooks.ChannelPrompt
		question               string
		contextHas, contextNot []string
	}{
		{"bash", hooks.ChannelPrompt{RequestID: "tbxkq", Tool: "Bash", Description: "Clean the build directory", InputPreview: `{"command":"rm -rf build","description":"Clean the build directory"}`},
			"Claude Code asks: allow Bash?\n$ rm -rf build",
			[]string{"Relayed from Claude Code's terminal", "Description: Clean the build directory", "what you write under it", "Request: tbxkq", "Session: channel-1"}, nil},
		{"bash preview cut by Claude Code", hooks.ChannelPrompt{RequestID: "abcde", Tool: "Bash", Description: "Deploy", InputPreview: `{"command":"GITHUB_TOKEN=ghp_abc123 make rel`},
			"Claude Code asks: allow Bash?\n$ GITHUB_TOKEN=*** make rel\n… (Claude Code's preview ends here)", nil, nil},
		{"description that is the command", hooks.ChannelPrompt{RequestID: "abcde", Tool: "Bash", Description: "ls -la", InputPreview: `{"command":"ls -la"}`},
			"Claude Code asks: allow Bash?\n$ ls -la", nil, []string{"Description:"}},
		{"write", hooks.ChannelPrompt{RequestID: "abcde", Tool: "Write", InputPreview: `{"file_path":"/srv/app/.env","content":"API_KEY=sk_live_1"}`},
			"Claude Code asks: allow Write?\nFile: /srv/app/.env\nAPI_KEY=***", nil, []string{"sk_live"}},
		{"mcp tool", hooks.ChannelPrompt{RequestID: "abcde", Tool: "mcp__github__create_issue", InputPreview: `{"title":"Cart total"}`},
			"Claude Code asks: allow MCP tool create_issue of server github?\nArguments: {\"title\":\"Cart total\"}", nil, nil},
		{"not JSON", hooks.ChannelPrompt{RequestID: "abcde", Tool: "Bash", InputPreview: `curl -H "Authorization: Bearer abcdefghijkl" x`},
			"Claude Code asks: allow Bash?\nInput: curl -H \"Authorization: ***\" x", nil, []string{"abcdefghijkl"}},
		{"no preview", hooks.ChannelPrompt{RequestID: "abcde", Tool: "Read"},
			"Claude Code asks: allow Read?", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.prompt.Question("channel-1")
			if q.Question != tt.question {
				t.Errorf("question\n%q\nwant\n%q", q.Question, tt.question)
			}
			for _, s := range tt.contextHas {
				if !strings.Contains(q.Context, s) {
					t.Errorf("context does not show %q:\n%s", s, q.Context)
				}
			}
			for _, s := range tt.contextNot {
				if strings.Contains(q.Context+q.Question, s) {
					t.Errorf("question shows %q:\n%s\n%s", s, q.Question, q.Context)
				}
			}
			var labels []string
			for _, o := range q.Options {
				labels = append(labels, o.Label)
			}
			if strings.Join(labels, ",") != "Allow once,Deny" || q.SessionID != "channel-1" {
				t.Errorf("options %q, session %q", labels, q.SessionID)
			}
		})
	}
}

// TestChannelVerdict: each way a question ends, and the verdict it sends.
func TestChannelVerdict(t *testing.T) {
	const qt = "Claude Code asks: allow Bash?"
	ana := &client.Responder{Channel: "cli", User: "ana", Name: "ana"}
	answered := func(a client.Answer) *client.Result {
		return &client.Result{Status: client.StatusAnswered, AnsweredBy: ana, Answers: map[string]client.Answer{qt: a}}
	}
	tests := []struct {
		name     string
		res      *client.Result
		behavior string // "" for no decision
		note     string
	}{
		{"allow once", answered(client.Answer{Selected: []string{"Allow once"}}), "allow", ""},
		{"deny", answered(client.Answer{Selected: []string{"Deny"}}), "deny", ""},
		{"typed text", answered(client.Answer{CustomText: "use a temp dir"}), "deny", "Denied in chat by ana: use a temp dir"},
		{"declined with a reason", &client.Result{Status: client.StatusDeclined, AnsweredBy: ana, Reason: "not today"}, "deny", "Declined in chat by ana: not today"},
		{"declined", &client.Result{Status: client.StatusDeclined, AnsweredBy: ana}, "deny", ""},
		{"skipped", answered(client.Answer{Skipped: true}), "", ""},
		{"timed out", &client.Result{Status: client.StatusTimedOut}, "", ""},
		{"cancelled", &client.Result{Status: client.StatusCancelled, Reason: "the asking agent is gone"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := hooks.ChannelVerdict(tt.res, qt)
			if ok != (tt.behavior != "") || d.Behavior != tt.behavior || d.Note != tt.note {
				t.Fatalf("got %+v (%v), want behavior %q note %q", d, ok, tt.behavior, tt.note)
			}
		})
	}
}
