package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// hookFixture reads a recorded hook event from testdata/hooks and gives it
// the session id sid, so that each test case has its own questions.
func hookFixture(t *testing.T, name, sid string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ev["session_id"] = sid
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startHook runs `bridge hook ARGS…` against the server at addr with the
// event on its standard input.
func startHook(t *testing.T, addr string, event []byte, args ...string) *background {
	t.Helper()
	return startBridgeIn(t, addr, bytes.NewReader(event), append([]string{"hook"}, args...)...)
}

var waitingRe = regexp.MustCompile(`waiting for an answer in chat to question (\w+)`)

// waitingFor returns the id of the question the hook says it waits for.
func waitingFor(t *testing.T, bg *background) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := waitingRe.FindStringSubmatch(bg.errb.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-bg.done:
			t.Fatalf("hook exited %d before asking; stdout %q, stderr %q", code, bg.out.String(), bg.errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("hook did not ask within 30s; stderr %q", bg.errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// questionsOf lists the questions of a session through the SDK.
func questionsOf(t *testing.T, addr, session string, status client.Status) []client.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	qs, err := client.New("http://"+addr, "").List(ctx, session, status)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// questionByID returns one question of a session.
func questionByID(t *testing.T, addr, session, id string) client.Result {
	t.Helper()
	for _, q := range questionsOf(t, addr, session, "") {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("no question %s in session %s", id, session)
	return client.Result{}
}

// hookResult waits for the hook to end and returns its output.
func hookResult(t *testing.T, bg *background) (string, string, int) {
	t.Helper()
	code := bg.wait(t, 60*time.Second)
	return bg.out.String(), bg.errb.String(), code
}

// sameJSON reports whether two JSON documents hold the same values,
// whatever their key order and spacing.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	return reflect.DeepEqual(g, w)
}

// compactJSONString normalises a JSON document for comparison.
func compactJSONString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return b.String()
}
