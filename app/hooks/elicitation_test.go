package hooks

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// elicitEvent is Claude Code's Elicitation event as its hooks reference
// shows it, with requested_schema replaced by schema.
func elicitEvent(schema string) string {
	return `{"session_id":"S","transcript_path":"/home/ana/.claude/projects/shop/S.jsonl","cwd":"/home/ana/shop",` +
		`"permission_mode":"default","hook_event_name":"Elicitation","mcp_server_name":"my-mcp-server",` +
		`"message":"Please provide your credentials","mode":"form","requested_schema":` + schema + `}`
}

// elicitRun runs the hook on event in the background; result waits for
// its output.
type elicitRun struct{ done chan hookRun }

type hookRun struct {
	stdout, stderr string
	code           int
}

func startElicit(t *testing.T, event string) *elicitRun {
	t.Helper()
	r := &elicitRun{done: make(chan hookRun, 1)}
	go func() {
		out, errOut, code := runHookQuiet(event)
		r.done <- hookRun{out, errOut, code}
	}()
	return r
}

func (r *elicitRun) result(t *testing.T) (stdout, stderr string, code int) {
	t.Helper()
	select {
	case v := <-r.done:
		return v.stdout, v.stderr, v.code
	case <-time.After(60 * time.Second):
		t.Fatal("the hook did not end within 60s")
	}
	return "", "", 0
}

// runHookQuiet is runHook without the testing.T, for a goroutine.
func runHookQuiet(event string) (string, string, int) {
	var out, errb strings.Builder
	o := hookOptions{timeout: time.Minute, connectTimeout: 5 * time.Second}
	code := runAgentHook(claudeAgent, o, strings.NewReader(event), &out, &errb)
	return out.String(), errb.String(), code
}

// say sends text to the chat as ana and returns the bridge's reply.
func (b *testBridge) say(text string) broker.Reply {
	return b.HandleInbound(b.Ctx, broker.Inbound{Channel: "chat", Chat: "room", User: "U1", Name: "ana", Text: text})
}

func elicitOut(action, content string) string {
	out := `{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"` + action + `"`
	if content != "" {
		out += `,"content":` + content
	}
	return out + "}}\n"
}

// Every type of property MCP's requestedSchema allows, in the payload
// Claude Code hands the hook: the form is asked in chat as prompts with
// typed fields (what people see: the question, the buttons, the rule a
// wrong answer is refused with), and the answers come back as accept
// with content, typed as the schema types them.
func TestElicitationFieldTypes(t *testing.T) {
	tests := []struct {
		name, schema string
		// fields are the asked prompts' fields as JSON, options their
		// buttons' labels (joined with "|", one string per prompt).
		fields, options []string
		bad, refusal    string // a wrong answer to the first prompt, and what the reply says
		answers         []string
		content         string
	}{
		{"string with format and lengths",
			`{"type":"object","properties":{"email":{"type":"string","title":"Email","description":"Where the receipt goes","format":"email","minLength":6,"maxLength":64}},"required":["email"]}`,
			[]string{`{"name":"email","type":"string","title":"Email","description":"Where the receipt goes","min_length":6,"max_length":64,"format":"email"}`}, []string{""},
			"ana", "must be an email address", []string{"ana@example.com"}, `{"email":"ana@example.com"}`},
		{"string date",
			`{"type":"object","properties":{"start":{"type":"string","title":"Start date","format":"date"}}}`,
			[]string{`{"name":"start","type":"string","title":"Start date","format":"date"}`}, []string{""},
			"next monday", "date", []string{"2026-12-07"}, `{"start":"2026-12-07"}`},
		{"number",
			`{"type":"object","properties":{"ratio":{"type":"number","title":"Sample ratio","minimum":0,"maximum":1}},"required":["ratio"]}`,
			[]string{`{"name":"ratio","type":"number","title":"Sample ratio","minimum":0,"maximum":1}`}, []string{""},
			"2", "from 0 to 1", []string{"0.25"}, `{"ratio":0.25}`},
		{"integer with a default",
			`{"type":"object","properties":{"port":{"type":"integer","title":"Port","minimum":1024,"maximum":65535,"default":8080}}}`,
			[]string{`{"name":"port","type":"integer","title":"Port","default":8080,"minimum":1024,"maximum":65535}`}, []string{""},
			"80", "whole number from 1024 to 65535", []string{"8443"}, `{"port":8443}`},
		{"boolean",
			`{"type":"object","properties":{"subscribe":{"type":"boolean","title":"Subscribe to the newsletter","default":false}}}`,
			[]string{`{"name":"subscribe","type":"boolean","title":"Subscribe to the newsletter","default":false}`}, []string{"Yes|No"},
			"", "", []string{"1"}, `{"subscribe":true}`},
		{"enum untitled",
			`{"type":"object","properties":{"size":{"type":"string","title":"Size","enum":["small","large"]}}}`,
			[]string{`{"name":"size","type":"enum","title":"Size","choices":[{"value":"small"},{"value":"large"}]}`}, []string{"small|large"},
			"", "", []string{"2"}, `{"size":"large"}`},
		{"enum with titles (oneOf)",
			`{"type":"object","properties":{"region":{"type":"string","title":"Region","oneOf":[{"const":"eu-west-1","title":"Europe"},{"const":"us-east-1","title":"United States"}]}}}`,
			[]string{`{"name":"region","type":"enum","title":"Region","choices":[{"value":"eu-west-1","title":"Europe"},{"value":"us-east-1","title":"United States"}]}`},
			[]string{"Europe|United States"}, "other Asia", "free text is not accepted", []string{"Europe"}, `{"region":"eu-west-1"}`},
		{"enum with enumNames, no title",
			`{"type":"object","properties":{"env":{"type":"string","enum":["stg","prd"],"enumNames":["Staging","Production"]}}}`,
			[]string{`{"name":"env","type":"enum","title":"env","choices":[{"value":"stg","title":"Staging"},{"value":"prd","title":"Production"}]}`},
			[]string{"Staging|Production"}, "", "", []string{"2"}, `{"env":"prd"}`},
		{"multi-select",
			`{"type":"object","properties":{"checks":{"type":"array","title":"Checks","minItems":1,"maxItems":2,"items":{"type":"string","enum":["lint","test","vet"]}}}}`,
			[]string{`{"name":"checks","type":"multi_enum","title":"Checks","choices":[{"value":"lint"},{"value":"test"},{"value":"vet"}],"min_items":1,"max_items":2}`},
			[]string{"lint|test|vet"}, "1,2,3", "", []string{"1,3"}, `{"checks":["lint","vet"]}`},
		{"multi-select with titles (anyOf)",
			`{"type":"object","properties":{"days":{"type":"array","title":"Days","items":{"anyOf":[{"const":"mon","title":"Monday"},{"const":"fri","title":"Friday"}]}}}}`,
			[]string{`{"name":"days","type":"multi_enum","title":"Days","choices":[{"value":"mon","title":"Monday"},{"value":"fri","title":"Friday"}]}`},
			[]string{"Monday|Friday"}, "", "", []string{"2"}, `{"days":["fri"]}`},
		{"the reference's form with every kind, in its order",
			`{"type":"object","properties":{"username":{"type":"string","title":"Username"},"age":{"type":"integer","title":"Age","minimum":18},` +
				`"newsletter":{"type":"boolean","title":"Newsletter"},"tier":{"type":"string","title":"Tier","enum":["free","pro"]}},"required":["username","age"]}`,
			[]string{`{"name":"username","type":"string","title":"Username"}`, `{"name":"age","type":"integer","title":"Age","minimum":18}`,
				`{"name":"newsletter","type":"boolean","title":"Newsletter"}`, `{"name":"tier","type":"enum","title":"Tier","choices":[{"value":"free"},{"value":"pro"}]}`},
			[]string{"", "", "Yes|No", "free|pro"}, "", "", []string{"alice", "42", "No", "pro"},
			`{"username":"alice","age":42,"newsletter":false,"tier":"pro"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := startTestBridge(t, nobody)
			run := startElicit(t, elicitEvent(tt.schema))
			q := b.pendingIn(t, "claude:S", 1)[0]
			for _, s := range []string{"The MCP server my-mcp-server asks, through Claude Code:\nPlease provide your credentials", "Directory: /home/ana/shop", "Session: claude:S"} {
				if !strings.Contains(q.Context, s) {
					t.Errorf("context does not show %q:\n%s", s, q.Context)
				}
			}
			if len(q.Prompts) != len(tt.fields) {
				t.Fatalf("asked %d prompts, want %d", len(q.Prompts), len(tt.fields))
			}
			for i, p := range q.Prompts {
				got, _ := json.Marshal(p.Field)
				if string(got) != tt.fields[i] {
					t.Errorf("prompt %d field\n%s\nwant\n%s", i, got, tt.fields[i])
				}
				var labels []string
				for _, o := range p.Options {
					labels = append(labels, o.Label)
				}
				if strings.Join(labels, "|") != tt.options[i] {
					t.Errorf("prompt %d options %q, want %q", i, labels, tt.options[i])
				}
				if p.Question != p.Field.Title {
					t.Errorf("prompt %d asks %q, want the property's title %q", i, p.Question, p.Field.Title)
				}
			}
			if tt.bad != "" {
				r := b.say(broker.FormatAnswer(q.Ref(0), tt.bad))
				if r.OK || !strings.Contains(r.Text, tt.refusal) {
					t.Fatalf("answer %q: ok %v, reply %q, want a refusal saying %q", tt.bad, r.OK, r.Text, tt.refusal)
				}
			}
			for i, a := range tt.answers {
				if r := b.say(broker.FormatAnswer(q.Ref(i), a)); !r.OK {
					t.Fatalf("answer %q to prompt %d refused: %s", a, i, r.Text)
				}
			}
			out, errOut, code := run.result(t)
			if code != 0 || out != elicitOut("accept", tt.content) {
				t.Fatalf("exit %d, printed %q, want %q; stderr %q", code, out, elicitOut("accept", tt.content), errOut)
			}
		})
	}
}

// The other ways a form ends in chat: declined, cancelled, a value
// skipped.
func TestElicitationOutcomes(t *testing.T) {
	const form = `{"type":"object","properties":{"username":{"type":"string","title":"Username"},"nick":{"type":"string","title":"Nickname"}},"required":["username"]}`
	tests := []struct {
		name string
		act  func(t *testing.T, b *testBridge, q *broker.Question)
		want string
	}{
		{"declined", func(t *testing.T, b *testBridge, q *broker.Question) {
			if r := b.say(broker.FormatDecline(q.ID, "not for this server")); !r.OK {
				t.Fatal(r.Text)
			}
		}, elicitOut("decline", "")},
		{"cancelled", func(t *testing.T, b *testBridge, q *broker.Question) {
			if _, err := client.New(b.url, "").Cancel(context.Background(), q.ID, "wrong form"); err != nil {
				t.Fatal(err)
			}
		}, elicitOut("cancel", "")},
		{"a required value skipped", func(t *testing.T, b *testBridge, q *broker.Question) {
			for i, a := range []string{"skip", "ana"} {
				if r := b.say(broker.FormatAnswer(q.Ref(i), a)); !r.OK {
					t.Fatal(r.Text)
				}
			}
		}, elicitOut("cancel", "")},
		{"an optional value skipped", func(t *testing.T, b *testBridge, q *broker.Question) {
			for i, a := range []string{"alice", "skip"} {
				if r := b.say(broker.FormatAnswer(q.Ref(i), a)); !r.OK {
					t.Fatal(r.Text)
				}
			}
		}, elicitOut("accept", `{"username":"alice"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := startTestBridge(t, nobody)
			run := startElicit(t, elicitEvent(form))
			q := b.pendingIn(t, "claude:S", 1)[0]
			if !strings.Contains(q.Context, "Required: Username (skipping one cancels the form)") {
				t.Errorf("context does not say what is required:\n%s", q.Context)
			}
			tt.act(t, b, q)
			out, errOut, code := run.result(t)
			if code != 0 || out != tt.want {
				t.Fatalf("exit %d, printed %q, want %q; stderr %q", code, out, tt.want, errOut)
			}
		})
	}
}

// A form that ends with nobody's decision (timed out, or nobody could
// be asked) leaves it to the local form: no output.
func TestElicitationNoDecision(t *testing.T) {
	asked := []elicitPrompt{{key: "username", question: "Username", required: true}}
	for _, st := range []client.Status{client.StatusTimedOut, client.StatusUnsupported, client.StatusPending} {
		if out := elicitDecide(&client.Result{Status: st}, asked); out != nil {
			t.Errorf("%s: %+v, want no output", st, out)
		}
	}
	// An answered dialog that lacks the prompt (another form's answer)
	// decides nothing either.
	if out := elicitDecide(&client.Result{Status: client.StatusAnswered, Answers: map[string]client.Answer{}}, asked); out != nil {
		t.Errorf("answers without the prompt: %+v, want no output", out)
	}
}

// A bridge that is down: nothing is printed, exit 0, and the reason is
// on stderr; the local form appears.
func TestElicitationBridgeDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("ASKBRIDGE_SERVER", "http://"+addr)
	t.Setenv("ASKBRIDGE_KEY", "")
	var out, errb strings.Builder
	o := hookOptions{timeout: time.Minute, connectTimeout: 300 * time.Millisecond}
	code := runAgentHook(claudeAgent, o, strings.NewReader(elicitEvent(`{"type":"object","properties":{"username":{"type":"string"}}}`)), &out, &errb)
	if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "did not answer within") || !strings.Contains(errb.String(), "the local dialog decides") {
		t.Fatalf("exit %d, printed %q, stderr %q", code, out.String(), errb.String())
	}
}

// Events the chat cannot take: nothing is printed, nothing is asked, and
// stderr says why. An unreadable event exits 1 (a non-blocking error to
// Claude Code: its form appears, never declined as exit 2 would); a form
// the hook cannot map or the bridge refuses exits 0, left to the local
// form.
func TestElicitationRefused(t *testing.T) {
	five := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"}}}`
	tests := []struct {
		name, event string
		code        int
		why         string
	}{
		{"not JSON", `{"hook_event_name":"Elicitation",`, 1, "not Claude Code hook JSON"},
		{"fields of the wrong type", `{"hook_event_name":"Elicitation","mcp_server_name":"my-mcp-server","message":7}`, 1, "not Claude Code hook JSON"},
		{"no requested_schema", strings.Replace(elicitEvent(`null`), `,"requested_schema":null`, "", 1), 0, "has no requested_schema"},
		{"url mode", `{"session_id":"S","hook_event_name":"Elicitation","mcp_server_name":"my-mcp-server","message":"Please authenticate","mode":"url","url":"https://auth.example.com/login"}`,
			0, `is in mode "url"; chat takes forms only`},
		{"schema not an object", elicitEvent(`{"type":"array","properties":{"a":{"type":"string"}}}`), 0, `has type "array", not object`},
		{"properties not an object", elicitEvent(`{"type":"object","properties":[1]}`), 0, "requested_schema of MCP server my-mcp-server"},
		{"no properties", elicitEvent(`{"type":"object","properties":{}}`), 0, "has no properties"},
		{"five properties", elicitEvent(five), 0, "has 5 values; chat asks at most 4 at a time"},
		{"an object property", elicitEvent(`{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`),
			0, `property "address" of the requested_schema of MCP server my-mcp-server: type "object", which the bridge does not take`},
		{"a property without type", elicitEvent(`{"type":"object","properties":{"note":{"title":"Note"}}}`), 0, `property "note" of the requested_schema of MCP server my-mcp-server: no type`},
		{"an array of free values", elicitEvent(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`),
			0, "an array without items of enum or anyOf choices"},
		{"an enum the bridge refuses", elicitEvent(`{"type":"object","properties":{"size":{"type":"string","enum":["small"]}}}`),
			0, "no decision from chat (askbridge: field.choices: give 2–4 choices, got 1"},
		{"a format the bridge refuses", elicitEvent(`{"type":"object","properties":{"ip":{"type":"string","format":"ipv4"}}}`),
			0, `no decision from chat (askbridge: field.format: must be one of email, uri, date, date-time; got "ipv4"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := startTestBridge(t, nobody)
			out, errOut, code := runHook(t, claudeAgent, tt.event)
			if code != tt.code || out != "" || !strings.Contains(errOut, tt.why) {
				t.Fatalf("exit %d, printed %q, stderr %q; want exit %d, nothing printed, stderr saying %q", code, out, errOut, tt.code, tt.why)
			}
			if qs := b.sessionQuestions(t, "claude:S"); len(qs) != 0 {
				t.Fatalf("%d questions stored, want none", len(qs))
			}
			if n := b.chat.postCount(); n != 0 {
				t.Fatalf("%d questions reached the chat", n)
			}
		})
	}
}

// Two properties of one title are asked as two questions, told apart by
// their keys, and each value returns under its own key.
func TestElicitationSameTitles(t *testing.T) {
	b := startTestBridge(t, nobody)
	run := startElicit(t, elicitEvent(`{"type":"object","properties":{"from":{"type":"string","title":"Date","format":"date"},"to":{"type":"string","title":"Date","format":"date"}}}`))
	q := b.pendingIn(t, "claude:S", 1)[0]
	var questions []string
	for _, p := range q.Prompts {
		questions = append(questions, p.Question)
	}
	if !slices.Equal(questions, []string{"Date", "Date (to)"}) {
		t.Fatalf("asked %q", questions)
	}
	for i, a := range []string{"2026-12-07", "2026-12-11"} {
		if r := b.say(broker.FormatAnswer(q.Ref(i), a)); !r.OK {
			t.Fatal(r.Text)
		}
	}
	out, errOut, code := run.result(t)
	if want := elicitOut("accept", `{"from":"2026-12-07","to":"2026-12-11"}`); code != 0 || out != want {
		t.Fatalf("exit %d, printed %q, want %q; stderr %q", code, out, want, errOut)
	}
}
