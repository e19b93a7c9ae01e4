package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
)

// Two bridges on one Redis: a blocking `bridge ask` on A gets the answer
// given through B's /v1/commands.
func TestRedisAnswerThroughOtherInstance(t *testing.T) {
	_, a, b := startRedisPair(t)
	out := newStampWriter()
	ask := bridgeCmd(t, a.addr, "ask", "--option", "Postgres", "--option", "SQLite", "Which database?")
	var errb testutil.Buffer
	ask.Stdout, ask.Stderr = out, &errb
	if err := ask.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ask.Wait() }()
	t.Cleanup(func() { _ = ask.Process.Kill() })

	ids := waitPending(t, b.addr, 1) // B lists the question asked on A
	// `bridge answer` prints B's reply as soon as it has it; the clock
	// starts there, not when the process has exited.
	reply := newStampWriter()
	answer := bridgeCmd(t, b.addr, "answer", ids[0], "2")
	var answerErr testutil.Buffer
	answer.Stdout, answer.Stderr = reply, &answerErr
	if err := answer.Run(); err != nil || strings.TrimSpace(reply.String()) != "Recorded: SQLite" {
		t.Fatalf("answer on B: %v, %q %q", err, reply.String(), answerErr.String())
	}
	answered := <-reply.first
	select {
	case first := <-out.first:
		t.Logf("A's ask printed the result %s after B's reply reached `bridge answer`", first.Sub(answered).Round(100*time.Microsecond))
	case <-time.After(5 * time.Second):
		t.Fatalf("A's ask printed nothing within 5s of B's answer; stderr: %s", errb.String())
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ask on A: %v; stderr: %s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ask on A did not exit")
	}
	res := decodeResult(t, out.String())
	if res.ID != ids[0] || res.Status != "answered" || res.Answers["Which database?"].Selected[0] != "SQLite" || res.AnsweredBy == nil || res.AnsweredBy.Channel != "cli" {
		t.Fatalf("A's ask printed %s", out.String())
	}
}

// The latency of the cross-instance wake-up: a long poll on A, the answer
// posted to B, over 50 rounds. It asserts only that every wait ends with
// the answer, and logs the figures (docs/multi-instance.md quotes them).
func TestRedisCrossInstanceLatency(t *testing.T) {
	_, a, b := startRedisPair(t)
	const rounds = 50
	var fromSend []time.Duration
	early := 0 // rounds in which A returned before B's reply was read
	for i := range rounds {
		id := askPendingHTTP(t, a.addr, fmt.Sprintf("Round %d?", i), nil)
		got := make(chan time.Time, 1)
		var body []byte
		var code int
		go func() {
			c, raw, err := apiTry("GET", a.addr, "/v1/questions/"+id+"?wait=30s", nil)
			code, body = c, raw
			if err != nil {
				body = []byte(err.Error())
			}
			got <- time.Now()
		}()
		until(t, "the long poll to wait on A", func() bool { return metricValue(t, a.addr, "askbridge_waiters") == 1 })
		sent := time.Now()
		c, raw := apiCall(t, "POST", b.addr, "/v1/commands", commandBody{Text: "/answer " + id + " 1"})
		replied := time.Now()
		if c != http.StatusOK {
			t.Fatalf("answer on B: %d %s", c, raw)
		}
		var returned time.Time
		select {
		case returned = <-got:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: A's long poll did not return within 5s of B's answer", i)
		}
		if res := decodeResult(t, string(body)); code != http.StatusOK || res.Status != "answered" || res.Answers[fmt.Sprintf("Round %d?", i)].Selected[0] != "Yes" {
			t.Fatalf("round %d: A returned %d %s", i, code, body)
		}
		fromSend = append(fromSend, returned.Sub(sent))
		if returned.Before(replied) {
			early++
		}
	}
	p50, pmax := quantiles(fromSend)
	t.Logf("over %d rounds, from sending the answer to B until A's long poll returned: p50 %s, max %s; A returned before B's reply was read in %d rounds",
		rounds, p50, pmax, early)
}

// quantiles returns the median and the maximum.
func quantiles(ds []time.Duration) (p50, pmax time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(100 * time.Microsecond), s[len(s)-1].Round(100 * time.Microsecond)
}

// 1,000 concurrent answers for 100 questions over two instances: exactly
// one answer per question is accepted, every other one is refused naming
// the winner, one resolution event per question is logged, and the stored
// result is the accepted one.
func TestRedisConcurrentAnswersAcrossInstances(t *testing.T) {
	_, a, b := startRedisPair(t)
	nodes := []string{a.addr, b.addr}
	const questions, answers = 100, 1000
	ids := make([]string, questions)
	for i := range ids {
		ids[i] = askPendingHTTP(t, nodes[i%2], fmt.Sprintf("Question %d?", i), nil)
	}

	type outcome struct {
		id, user string
		code     int
		reply    commandReply
	}
	results := make([]outcome, answers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for n := range answers {
		id, user := ids[n%questions], fmt.Sprintf("person-%04d", n)
		node := nodes[rand.IntN(2)]
		choice := 1 + rand.IntN(2)
		wg.Go(func() {
			<-start
			code, raw, err := apiTry("POST", node, "/v1/commands", commandBody{User: user, Text: fmt.Sprintf("/answer %s %d", id, choice)})
			o := outcome{id: id, user: user, code: code}
			if err == nil {
				err = json.Unmarshal(raw, &o.reply)
			}
			if err != nil {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%s by %s: %v (%d %s)", id, user, err, code, raw))
				mu.Unlock()
			}
			results[n] = o
		})
	}
	close(start)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d answers failed, first: %s", len(failures), failures[0])
	}

	winners := map[string]outcome{}
	codes := map[int]int{}
	for _, o := range results {
		codes[o.code]++
		if o.code == http.StatusOK {
			if w, dup := winners[o.id]; dup {
				t.Fatalf("question %s accepted two answers: %s and %s", o.id, w.user, o.user)
			}
			winners[o.id] = o
		}
	}
	if codes[http.StatusOK] != questions || codes[http.StatusConflict] != answers-questions {
		t.Fatalf("status codes %v, want %d×200 and %d×409", codes, questions, answers-questions)
	}
	for _, o := range results {
		if o.code != http.StatusConflict {
			continue
		}
		if want := "Already answered by " + winners[o.id].user + " "; !strings.HasPrefix(o.reply.Reply, want) {
			t.Fatalf("refused answer to %s says %q, want it to start with %q", o.id, o.reply.Reply, want)
		}
	}
	for i, id := range ids {
		w := winners[id]
		var accepted map[string]any
		if err := json.Unmarshal(w.reply.Question, &accepted); err != nil {
			t.Fatalf("accepted answer to %s carries no result: %s", id, w.reply.Question)
		}
		for _, node := range nodes {
			stored := getResult(t, node, id)
			// copies is where each copy stands in the outbox, which
			// moves on after the answer; the result itself must match.
			delete(stored, "copies")
			if !reflect.DeepEqual(stored, accepted) {
				t.Fatalf("question %d (%s) on %s:\nstored   %v\naccepted %v", i, id, node, stored, accepted)
			}
		}
	}
	if n := listCount(t, b.addr, "answered"); n != questions {
		t.Fatalf("%d questions listed as answered, want %d", n, questions)
	}
	if events := resolvedEvents(t, a.addr, questions); len(events) != questions {
		t.Fatalf("%d resolution events, want %d", len(events), questions)
	} else {
		for _, id := range ids {
			if events[id] != 1 {
				t.Fatalf("question %s has %d resolution events", id, events[id])
			}
		}
	}
}

// listCount counts the questions with a status through GET /v1/questions.
func listCount(t *testing.T, addr, status string) int {
	t.Helper()
	code, raw := apiCall(t, "GET", addr, "/v1/questions?limit=1000&status="+status, nil)
	var body struct {
		Questions []json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || code != http.StatusOK {
		t.Fatalf("list %s: %d %s", status, code, raw)
	}
	return len(body.Questions)
}
