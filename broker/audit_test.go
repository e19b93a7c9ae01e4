package broker_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// policyEntries keeps the entries team policies record (votes,
// refusals, snoozes, escalations, notes) of a trail, leaving out those
// every question has (its ask, posts, prompts answered, resolution).
func policyEntries(log []broker.AuditEntry, err error) ([]broker.AuditEntry, error) {
	var out []broker.AuditEntry
	for _, e := range log {
		switch e.Kind {
		case broker.AuditAsked, broker.AuditPosted, broker.AuditPromptAnswered, broker.AuditResolved:
		default:
			out = append(out, e)
		}
	}
	return out, err
}

// sealed returns a trail of n entries of question "k7m2qx", sealed as a
// store seals them.
func sealed(t *testing.T, n int) []broker.AuditEntry {
	t.Helper()
	at := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	prev := ""
	out := make([]broker.AuditEntry, n)
	for i := range out {
		e := broker.AuditEntry{Question: "k7m2qx", Agent: "a1", At: at.Add(time.Duration(i) * time.Second), Kind: broker.AuditRefused,
			By: &broker.Responder{Channel: "slack", User: "U1", Person: &broker.PersonRef{ID: "ana", Name: "Ana"}}, Reason: "not_responder"}
		if i == 0 {
			e.Kind = broker.AuditAsked
		}
		raw, err := broker.SealAudit(prev, int64(i+1), &e)
		if err != nil {
			t.Fatal(err)
		}
		// A store keeps the JSON and reads it back.
		var back broker.AuditEntry
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("stored JSON %s: %v", raw, err)
		}
		out[i], prev = back, e.Hash
	}
	return out
}

// TestSealAuditJSON: the JSON SealAudit returns is the entry's own, hash
// included, and the hash is that of the rest.
func TestSealAuditJSON(t *testing.T) {
	exp := time.Date(2026, 11, 29, 15, 0, 0, 123456789, time.FixedZone("CET", 3600))
	for _, e := range []broker.AuditEntry{
		{Question: "k7m2qx", At: time.Now(), Kind: broker.AuditAsked},
		{Question: "k7m2qx", Agent: "a1", At: time.Now(), Kind: broker.AuditSnoozed, ExpiresAt: &exp, Detail: "by 30m <&> \"ü\""},
		{Question: "k7m2qx", Agent: "a1", At: time.Now(), Kind: broker.AuditAsked, Route: "prod", Targets: []broker.Target{{Channel: "slack", Chat: "C1"}},
			RequestedBy: []string{"slack:U9"}, Policy: &broker.Policy{Quorum: 2, Snooze: &broker.SnoozePolicy{By: broker.Duration(time.Hour), Max: 2}}},
		{Question: "k7m2qx", At: time.Now(), Kind: broker.AuditResolved, Status: broker.StatusAnswered, Voters: []broker.Responder{{Channel: "web", User: "ana"}}},
	} {
		raw, err := broker.SealAudit("ab12", 3, &e)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(e)
		if string(raw) != string(want) {
			t.Fatalf("SealAudit gave\n%s\nwant the entry's JSON\n%s", raw, want)
		}
		var back broker.AuditEntry
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if h, err := broker.AuditHash(back); err != nil || h != e.Hash || back.Seq != 3 || back.Prev != "ab12" || len(e.Hash) != 64 {
			t.Fatalf("read back: hash %s (%v), entry %+v; want hash %s, seq 3 after ab12", h, err, back, e.Hash)
		}
	}
}

// TestVerifyAudit names the first entry changed, removed, moved or
// unsealed.
func TestVerifyAudit(t *testing.T) {
	rehash := func(e *broker.AuditEntry) { e.Hash, _ = broker.AuditHash(*e) }
	for _, tc := range []struct {
		name   string
		change func(log []broker.AuditEntry) []broker.AuditEntry
		bad    int
		why    string
	}{
		{"whole", func(l []broker.AuditEntry) []broker.AuditEntry { return l }, 0, ""},
		{"empty", func([]broker.AuditEntry) []broker.AuditEntry { return nil }, 0, ""},
		{"a detail changed", func(l []broker.AuditEntry) []broker.AuditEntry { l[2].Detail = "yes"; return l }, 3, "entry 3 (refused) was changed: its content does not match its hash"},
		{"the person changed", func(l []broker.AuditEntry) []broker.AuditEntry { l[1].By.Person.ID = "eve"; return l }, 2, "entry 2 (refused) was changed"},
		{"changed and hashed again", func(l []broker.AuditEntry) []broker.AuditEntry { l[1].Detail = "x"; rehash(&l[1]); return l }, 2, "entry 2 (refused) was changed, or entries after it removed: entry 3 names another hash before it"},
		{"the first changed and hashed again", func(l []broker.AuditEntry) []broker.AuditEntry { l[0].Prev = "00"; rehash(&l[0]); return l }, 1, "entry 1 (asked) was changed: it names an entry before it"},
		{"one removed", func(l []broker.AuditEntry) []broker.AuditEntry { return append(l[:2:2], l[3:]...) }, 3, "entry 3 is missing: entry 2 is followed by entry 4"},
		{"the first removed", func(l []broker.AuditEntry) []broker.AuditEntry { return l[1:] }, 1, "entry 1 is missing"},
		{"two swapped", func(l []broker.AuditEntry) []broker.AuditEntry { l[1], l[2] = l[2], l[1]; return l }, 2, "entry 2 is missing: entry 1 is followed by entry 3"},
		{"one repeated", func(l []broker.AuditEntry) []broker.AuditEntry { return append(l[:3:3], l[2], l[3]) }, 4, "entry 4 is out of place: entry 3 (refused) comes where entry 4 belongs"},
		{"renumbered after a removal", func(l []broker.AuditEntry) []broker.AuditEntry {
			l = append(l[:2:2], l[3:]...)
			l[2].Seq = 3
			rehash(&l[2])
			return l
		}, 2, "entry 2 (refused) was changed, or entries after it removed"},
		{"from another question", func(l []broker.AuditEntry) []broker.AuditEntry { l[3].Question = "zzzzzz"; return l }, 4, "entry 4 (refused) belongs to question zzzzzz, not k7m2qx"},
		{"unsealed", func(l []broker.AuditEntry) []broker.AuditEntry { l[0].Hash = ""; return l }, 1, "entry 1 (asked) has no hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, bad, why := broker.VerifyAudit(tc.change(sealed(t, 4)))
			if ok != (tc.bad == 0) || bad != tc.bad || !strings.HasPrefix(why, tc.why) {
				t.Fatalf("VerifyAudit = %v, %d, %q; want entry %d: %q", ok, bad, why, tc.bad, tc.why)
			}
		})
	}
}

// TestAuditOfQuestionLifecycle follows one question through the broker:
// its ask, the copy posted, each prompt of the dialog answered and the
// resolution are in its trail, chained; another agent does not see it.
func TestAuditOfQuestionLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	q, _, err := e.b.Ask(ctx, "agent-1", &broker.AskRequest{SessionID: "s1", Questions: []broker.Prompt{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which cache?", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) >= 2 }) {
		t.Fatal("not posted")
	}
	for _, text := range []string{"/answer " + q.ID + ".1 2", "/answer " + q.ID + ".2 1"} {
		if r := e.b.HandleInbound(ctx, broker.Inbound{Channel: "chat", Chat: "c1", User: "ana", Name: "Ana", Text: text}); !r.OK {
			t.Fatalf("%s: %+v", text, r)
		}
	}
	log, err := e.b.Audit(ctx, "agent-1", q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok, bad, why := broker.VerifyAudit(log); !ok {
		t.Fatalf("chain broken at %d: %s", bad, why)
	}
	var kinds []string
	for _, a := range log {
		kinds = append(kinds, a.Kind)
	}
	if got := strings.Join(kinds, ","); got != "asked,posted,posted,prompt_answered,prompt_answered,resolved" {
		t.Fatalf("audit kinds = %s", got)
	}
	first, last := log[3], log[5]
	if first.Prompt != 1 || first.Choice != "SQLite" || first.By == nil || first.By.User != "ana" || last.Status != broker.StatusAnswered || last.Choice == "" {
		t.Fatalf("audit = %+v", log)
	}
	if log[0].Detail != "Which database? / Which cache?" || log[0].Agent != "agent-1" {
		t.Fatalf("asked = %+v", log[0])
	}
	for _, tc := range []struct{ agent, id string }{{"agent-2", q.ID}, {"agent-1", "zzzzzz"}, {"agent-1", "not an id"}} {
		if _, err := e.b.Audit(ctx, tc.agent, tc.id); !errors.Is(err, broker.ErrNotFound) {
			t.Errorf("Audit(%s, %s) = %v, want ErrNotFound", tc.agent, tc.id, err)
		}
	}
}
