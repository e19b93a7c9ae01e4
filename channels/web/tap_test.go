package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
)

// tapBody is what the page posts for a control: its step, the options
// ticked and the text typed, and files for /inbox/answer.
func tapBody(t *testing.T, step string, options []int, text string, files map[string][]byte) string {
	t.Helper()
	m := map[string]any{"step": step, "options": options, "text": text}
	if files != nil {
		var fs []map[string]string
		for name, data := range files {
			fs = append(fs, map[string]string{"name": name, "type": "", "data": base64.StdEncoding.EncodeToString(data)})
		}
		m["files"] = fs
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTapEndpoints posts the steps of a question's view as the page
// does, without a browser: what each records, and what is refused with
// which words.
func TestTapEndpoints(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	self := e.srv.URL
	ask := func(t *testing.T) (*broker.Question, view) {
		q := e.ask(t, &broker.AskRequest{Question: "Which caches?", MultiSelect: true,
			Options: []broker.Option{opt("Redis", ""), opt("Memcached", ""), opt("None", "")}})
		return q, render(q, time.Now(), time.UTC)
	}
	skipOf := func(v view) string { c, _ := control(v.Prompts[0].Controls, broker.ControlSkip); return c.Step }
	declineOf := func(v view) string { c, _ := control(v.Controls, broker.ControlDecline); return c.Step }
	tests := []struct {
		name   string
		path   string
		body   func(v view) string
		status int
		ok     bool
		says   string
		check  func(t *testing.T, q *broker.Question)
	}{
		{"ticks with a note", "/inbox/command", func(v view) string { return tapBody(t, v.Prompts[0].Pick, []int{3, 1}, "both warm", nil) },
			200, true, "Recorded", func(t *testing.T, q *broker.Question) {
				if a := q.Answers["Which caches?"]; strings.Join(a.Selected, ",") != "Redis,None" || a.CustomText != "both warm" {
					t.Fatalf("answer %+v", a)
				}
			}},
		{"free text alone", "/inbox/command", func(v view) string { return tapBody(t, v.Prompts[0].Pick, nil, "Valkey", nil) },
			200, true, "Recorded", func(t *testing.T, q *broker.Question) {
				if a := q.Answers["Which caches?"]; a.CustomText != "Valkey" || len(a.Selected) != 0 {
					t.Fatalf("answer %+v", a)
				}
			}},
		{"skip", "/inbox/command", func(v view) string { return tapBody(t, skipOf(v), nil, "", nil) },
			200, true, "", func(t *testing.T, q *broker.Question) {
				if !q.Answers["Which caches?"].Skipped {
					t.Fatalf("answer %+v", q.Answers)
				}
			}},
		{"decline with a reason", "/inbox/command", func(v view) string { return tapBody(t, declineOf(v), nil, "ask ops", nil) },
			200, true, "", func(t *testing.T, q *broker.Question) {
				if q.Status != broker.StatusDeclined || q.Reason != "ask ops" {
					t.Fatalf("question %s, reason %q", q.Status, q.Reason)
				}
			}},
		{"files with ticks", "/inbox/answer", func(v view) string {
			return tapBody(t, v.Prompts[0].Pick, []int{2}, "", map[string][]byte{"server.log": sampleLog})
		}, 200, true, "Recorded", func(t *testing.T, q *broker.Question) {
			if a := q.Answers["Which caches?"]; a.Selected[0] != "Memcached" || len(a.Attachments) != 1 {
				t.Fatalf("answer %+v", a)
			}
		}},
		{"files alone", "/inbox/answer", func(v view) string {
			return tapBody(t, v.Prompts[0].Pick, nil, "", map[string][]byte{"shot.png": samplePNG})
		}, 200, true, "Recorded", func(t *testing.T, q *broker.Question) {
			if a := q.Answers["Which caches?"]; a.CustomText != "[Image #1]" || len(a.Attachments) != 1 {
				t.Fatalf("answer %+v", a)
			}
		}},
		{"nothing chosen", "/inbox/command", func(v view) string { return tapBody(t, v.Prompts[0].Pick, nil, " ", nil) },
			400, false, "Refused: choose an option or type an answer first", nil},
		{"not a step", "/inbox/command", func(v view) string { return tapBody(t, "hello", nil, "", nil) },
			400, false, "Refused: step: invalid input: not a button step", nil},
		{"an option out of range", "/inbox/command", func(v view) string { return tapBody(t, v.Prompts[0].Pick, []int{9}, "", nil) },
			400, false, "Refused: options: 9 is not an option number (1–4)", nil},
		{"an option the prompt lacks", "/inbox/command", func(v view) string { return tapBody(t, v.Prompts[0].Pick, []int{4}, "", nil) },
			200, false, "4 is not an option here: choose 1–3", nil},
		{"options on a skip", "/inbox/command", func(v view) string { return tapBody(t, skipOf(v), []int{1}, "", nil) },
			400, false, "Refused: options: only the answer form's step takes the options ticked", nil},
		{"a bad step with files", "/inbox/answer", func(v view) string {
			return tapBody(t, "1o:k7m2qx", nil, "", map[string][]byte{"shot.png": samplePNG})
		}, 400, false, "Refused: step:", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, v := ask(t)
			res, r := post(t, self+tc.path, self, "application/json", tc.body(v))
			if res.StatusCode != tc.status || r.OK != tc.ok || !strings.Contains(r.Reply, tc.says) {
				t.Fatalf("got %d %+v, want %d ok=%v saying %q", res.StatusCode, r, tc.status, tc.ok, tc.says)
			}
			got := e.get(t, q.ID)
			if tc.check == nil {
				if got.Status != broker.StatusPending || len(got.Answers) != 0 {
					t.Fatalf("a refused tap changed the question: %s %+v", got.Status, got.Answers)
				}
				return
			}
			tc.check(t, got)
		})
	}
}

// TestBiggestQuestionSteps: every step of the biggest question (4
// prompts of 4 options with the longest labels, every control) fits
// broker.MaxStepData, names its prompt, and the biggest post a control
// makes (all options ticked, the longest text) fits the inbox's body
// limit.
func TestBiggestQuestionSteps(t *testing.T) {
	label := func(p, k int) string { return fmt.Sprintf("P%d option %d %s", p, k, strings.Repeat("w", 48)) }
	q := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, Policy: broker.Policy{Snooze: &broker.SnoozePolicy{}}}
	for p := range broker.MaxPrompts {
		pr := broker.Prompt{Question: strings.Repeat("q", 900), Header: strings.Repeat("h", broker.MaxHeaderChars), MultiSelect: p%2 == 0}
		for k := range broker.MaxOptions {
			pr.Options = append(pr.Options, broker.Option{Label: label(p, k), Description: strings.Repeat("d", 300)})
		}
		q.Prompts = append(q.Prompts, pr)
	}
	q.Selections = map[int][]int{0: {0, 1, 2, 3}}
	v := render(q, time.Now(), time.UTC)
	if len(v.Prompts) != broker.MaxPrompts || len(v.Controls) != 3 {
		t.Fatalf("%d prompts, %d question controls; want %d and Not ready, Decline, Snooze", len(v.Prompts), len(v.Controls), broker.MaxPrompts)
	}
	check := func(what, step string, i int) {
		t.Helper()
		if len(step) > broker.MaxStepData {
			t.Errorf("%s: step %q is %d bytes, over %d", what, step, len(step), broker.MaxStepData)
		}
		s, err := broker.DecodeStep(step)
		if err != nil || s.Ref.ID != q.ID || s.Ref.Index != i || s.Ref.Count != broker.MaxPrompts {
			t.Errorf("%s: step %q reads as %+v, %v; want prompt %d of %s", what, step, s.Ref, err, i+1, q.ID)
		}
	}
	steps := 0
	for _, c := range v.Controls {
		check(string(c.Kind), c.Step, 0)
		steps++
	}
	for i, p := range v.Prompts {
		check(fmt.Sprintf("prompt %d's form", i+1), p.Pick, i)
		steps++
		for _, c := range p.Controls {
			check(fmt.Sprintf("prompt %d's %s", i+1, c.Kind), c.Step, i)
			steps++
		}
		body := tapBody(t, p.Pick, []int{1, 2, 3, 4}, strings.Repeat(`"`, maxCommandLen), nil)
		if len(body) > maxBody {
			t.Errorf("prompt %d: the biggest post is %d bytes, over the inbox's %d", i+1, len(body), maxBody)
		}
		if _, cmd, ok, err := (tap{Step: p.Pick, Options: []int{1, 2, 3, 4}, Text: "a note"}).command(); err != nil || !ok {
			t.Errorf("prompt %d: all options ticked send %q, %v, %v", i+1, cmd, ok, err)
		}
	}
	if want := 3 + broker.MaxPrompts*4 - 2; steps != want {
		t.Errorf("%d steps checked, want %d", steps, want)
	}
}

// FuzzTap holds a tap, which any page (or anyone) may post, to its
// contract: it never panics; what it refuses it refuses with words; what
// it accepts sends a command the grammar reads, for the prompt the step
// names.
func FuzzTap(f *testing.F) {
	pick := broker.EncodeStep(broker.Step{Kind: broker.StepPick, Ref: broker.PromptRef{ID: "k7m2qx", Index: 1, Count: 3}})
	for _, s := range []string{pick, "1c:k7m2qx.1/1", "1s:k7m2qx.2/2", "1o:k7m2qx.1/1:2", "/answer k7m2qx 2", "", "1p:k7m2qx"} {
		f.Add(s, []byte{1, 3}, "a note")
	}
	f.Fuzz(func(t *testing.T, step string, options []byte, text string) {
		if len(text) > maxCommandLen || !utf8.ValidString(text) {
			return
		}
		numbers := make([]int, len(options))
		for i, o := range options {
			numbers[i] = int(o)
		}
		s, cmd, ok, err := tap{Step: step, Options: numbers, Text: strings.TrimSpace(text)}.command()
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q refused without words", step)
			}
			return
		}
		if !ok {
			return
		}
		c, perr := broker.Parse(cmd)
		if perr != nil {
			if strings.ContainsAny(text, "\n\r") {
				return // a typed line break is the broker's to refuse
			}
			t.Fatalf("%q %v %q sends %q, which the grammar refuses: %v", step, options, text, cmd, perr)
		}
		if s.Legacy == "" && c.ID != s.Ref.ID {
			t.Fatalf("%q sends %q, for question %q", step, cmd, c.ID)
		}
	})
}
