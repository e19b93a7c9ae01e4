package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// The formats a page loaded before steps posted: each test reads the
// question's view as such a page does, builds what its script built from
// the old fields, posts it, and checks the answer is recorded. They go
// with legacy.go.

// oldView is what a page loaded before steps read of a view.
type oldView struct {
	Decline string `json:"decline"`
	Discuss string `json:"discuss"`
	Snooze  string `json:"snooze"`
	Prompts []struct {
		Choose  string `json:"choose"`
		Note    string `json:"note"`
		Other   string `json:"other"`
		Skip    string `json:"skip"`
		Options []struct {
			Command string `json:"command"`
		} `json:"options"`
	} `json:"prompts"`
}

// oldViewOf reads question id's view from /inbox/state as an old page.
func oldViewOf(t *testing.T, e *env, id string) oldView {
	t.Helper()
	st, _ := readState(t, e, "")
	for _, v := range st.Open {
		if v.ID != id {
			continue
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var old oldView
		if err := json.Unmarshal(data, &old); err != nil {
			t.Fatal(err)
		}
		return old
	}
	t.Fatalf("question %s is not open on the page", id)
	return oldView{}
}

// postOld posts what an old page's control sent: {"text": command}.
func postOld(t *testing.T, e *env, command string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": command})
	res, r := post(t, e.srv.URL+"/inbox/command", e.srv.URL, "application/json", string(body))
	if res.StatusCode != 200 || !r.OK {
		t.Fatalf("old page posting %q: %d %+v", command, res.StatusCode, r)
	}
}

func TestLegacyOptionCommand(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	postOld(t, e, oldViewOf(t, e, q.ID).Prompts[0].Options[1].Command)
	if a := e.get(t, q.ID); a.Status != broker.StatusAnswered || a.Answers["Deploy?"].Selected[0] != "No" {
		t.Fatalf("answer %+v", a.Answers)
	}
}

func TestLegacyChooseWithNote(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Which caches?", MultiSelect: true,
		Options: []broker.Option{opt("Redis", ""), opt("Memcached", ""), opt("None", "")}})
	p := oldViewOf(t, e, q.ID).Prompts[0]
	postOld(t, e, p.Choose+"1,2"+p.Note+"both warm")
	a := e.get(t, q.ID).Answers["Which caches?"]
	if strings.Join(a.Selected, ",") != "Redis,Memcached" || a.CustomText != "both warm" {
		t.Fatalf("answer %+v", a)
	}
}

func TestLegacyOther(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: []broker.Option{opt("Postgres", ""), opt("SQLite", "")}})
	postOld(t, e, oldViewOf(t, e, q.ID).Prompts[0].Other+"DuckDB")
	if a := e.get(t, q.ID).Answers["Which database?"]; a.CustomText != "DuckDB" {
		t.Fatalf("answer %+v", a)
	}
}

func TestLegacySkip(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: []broker.Option{opt("Postgres", ""), opt("SQLite", "")}})
	postOld(t, e, oldViewOf(t, e, q.ID).Prompts[0].Skip)
	if a := e.get(t, q.ID).Answers["Which database?"]; !a.Skipped {
		t.Fatalf("answer %+v", a)
	}
}

func TestLegacyDiscuss(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Drop the table?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	postOld(t, e, oldViewOf(t, e, q.ID).Discuss+" who reads it?")
	if a := e.get(t, q.ID); a.Status != broker.StatusDeclined || !a.NotReady || a.Reason != "who reads it?" {
		t.Fatalf("question %s, not ready %v, reason %q", a.Status, a.NotReady, a.Reason)
	}
}

func TestLegacyDecline(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Drop the table?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	postOld(t, e, oldViewOf(t, e, q.ID).Decline+" ask ops")
	if a := e.get(t, q.ID); a.Status != broker.StatusDeclined || a.NotReady || a.Reason != "ask ops" {
		t.Fatalf("question %s, not ready %v, reason %q", a.Status, a.NotReady, a.Reason)
	}
}

func TestLegacySnooze(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Route: "snooze", Question: "Deploy 412?", Options: []broker.Option{opt("Allow", ""), opt("Deny", "")}})
	postOld(t, e, oldViewOf(t, e, q.ID).Snooze)
	if a := e.get(t, q.ID); len(a.State.Snoozes) != 1 || !a.ExpiresAt.After(q.ExpiresAt) {
		t.Fatalf("snoozes %+v, expires %v (was %v)", a.State.Snoozes, a.ExpiresAt, q.ExpiresAt)
	}
}

// TestLegacyUpload: an old page sent files with the command its Other
// box would send as text.
func TestLegacyUpload(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "What fails?"})
	body := answerBody(t, oldViewOf(t, e, q.ID).Prompts[0].Other+"it breaks", "", 0, map[string][]byte{"server.log": sampleLog})
	res, r := post(t, e.srv.URL+"/inbox/answer", e.srv.URL, "application/json", body)
	if res.StatusCode != 200 || !r.OK {
		t.Fatalf("old upload: %d %+v", res.StatusCode, r)
	}
	if a := e.get(t, q.ID).Answers["What fails?"]; a.CustomText != "it breaks [File #1: server.log]" {
		t.Fatalf("answer %+v", a)
	}
}

// TestLegacyStepCommand: step data that is a command, the data of
// every channel's buttons before steps, sends that command.
func TestLegacyStepCommand(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	body, _ := json.Marshal(map[string]string{"step": broker.FormatOption(q.Ref(0), 0)})
	res, r := post(t, e.srv.URL+"/inbox/command", e.srv.URL, "application/json", string(body))
	if res.StatusCode != 200 || !r.OK {
		t.Fatalf("%s: %d %+v", body, res.StatusCode, r)
	}
	if a := e.get(t, q.ID); a.Answers["Deploy?"].Selected[0] != "Yes" {
		t.Fatalf("answer %+v", a.Answers)
	}
}
