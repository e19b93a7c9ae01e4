package brokertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// AuditEditor is what the audit conformance tests need of a store beside
// the contract: to act as someone who edits the store by hand. Each
// store's tests give its Store these methods (in a _test.go file of the
// store's package): SQLite with UPDATE and DELETE, Redis with LSET and
// LREM.
type AuditEditor interface {
	// EditAuditEntry replaces the stored JSON of entry seq of question
	// id's trail with edit's result.
	EditAuditEntry(ctx context.Context, id string, seq int64, edit func(raw string) string) error
	// RemoveAuditEntry removes entry seq of question id's trail.
	RemoveAuditEntry(ctx context.Context, id string, seq int64) error
}

var auditTests = []storeTest{
	{"StepsRecorded", testAuditSteps},
	{"ChainAfterConcurrentAppends", testAuditConcurrent},
	{"EditedEntryDetected", testAuditEdited},
	{"RemovedEntryDetected", testAuditRemoved},
	{"SurvivesPurge", testAuditSurvivesPurge},
	{"ExportSinceByAgent", testAuditExport},
	{"ExportPaged", testAuditExportPaged},
	{"ExportBadFilter", testAuditExportBad},
}

func refusal(at time.Time, user string) broker.AuditEntry {
	return broker.AuditEntry{At: at, Kind: broker.AuditRefused, By: &broker.Responder{Channel: "slack", User: user}, Reason: "not_responder", Detail: "no"}
}

// mustAudit reads question id's trail and checks its chain.
func mustAudit(t *testing.T, s broker.Store, id string) []broker.AuditEntry {
	t.Helper()
	log, err := s.Audit(context.Background(), id)
	if err != nil {
		t.Fatalf("Audit(%s): %v", id, err)
	}
	if ok, bad, why := broker.VerifyAudit(log); !ok {
		t.Fatalf("Audit(%s): the chain breaks at %d: %s\n%+v", id, bad, why, log)
	}
	return log
}

func auditKinds(log []broker.AuditEntry) string {
	kinds := make([]string, len(log))
	for i, e := range log {
		kinds[i] = e.Kind
	}
	return strings.Join(kinds, ",")
}

// testAuditSteps checks the entries the steps of a question append in
// the same step: Create the ask and its in-process copy, AddMessage a
// posted copy, Resolve the resolution; each numbered and naming the
// question and its agent.
func testAuditSteps(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	q.Targets = []broker.Target{{Channel: "web"}, {Channel: "slack", Chat: "C1"}}
	q.RequestedBy = []string{"slack:U9"}
	q.Policy = broker.Policy{ForbidRequester: true}
	mustCreateInProcess(t, s, q, []broker.Target{{Channel: "web"}})
	if err := s.AddMessage(ctx, q.ID, broker.MessageRef{Channel: "slack", Chat: "C1", MessageID: "1700.1", PostedAt: now.Add(time.Second)}); err != nil {
		t.Fatalf("AddMessage: %v", err)
	}
	by := &broker.Responder{Channel: "slack", User: "U1", Person: &broker.PersonRef{ID: "ana", Name: "Ana"}}
	mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusAnswered, AnsweredBy: by, ResolvedAt: now.Add(2 * time.Second),
		Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}})
	log := mustAudit(t, s, q.ID)
	if got := auditKinds(log); got != "asked,posted,posted,resolved" {
		t.Fatalf("audit kinds = %s, want asked,posted,posted,resolved", got)
	}
	for i, e := range log {
		if e.Question != q.ID || e.Agent != "a1" || e.Seq != int64(i+1) || e.Hash == "" {
			t.Fatalf("entry %d = %+v, want question %s, agent a1, seq %d, a hash", i+1, e, q.ID, i+1)
		}
	}
	asked, web, slack, resolved := log[0], log[1], log[2], log[3]
	if asked.Route != "default" || len(asked.Targets) != 2 || asked.Policy == nil || !asked.Policy.ForbidRequester ||
		len(asked.RequestedBy) != 1 || asked.Detail != "Which database?" || asked.Prev != "" {
		t.Fatalf("asked = %+v", asked)
	}
	sameTime(t, "asked at", asked.At, now)
	if web.Target == nil || web.Target.Channel != "web" || slack.Target == nil || slack.Target.Chat != "C1" || slack.Detail != "1700.1" {
		t.Fatalf("posted = %+v, %+v", web, slack)
	}
	if resolved.Status != broker.StatusAnswered || resolved.Choice != "SQLite" || resolved.By == nil ||
		resolved.By.Person == nil || resolved.By.Person.ID != "ana" || resolved.Prev != slack.Hash {
		t.Fatalf("resolved = %+v", resolved)
	}
	sameTime(t, "resolved at", resolved.At, now.Add(2*time.Second))
}

// testAuditConcurrent appends from two goroutines at once: every entry
// lands once, in one chain.
func testAuditConcurrent(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	const each = 15
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for g, user := range []string{"U1", "U2"} {
		wg.Go(func() {
			for i := range each {
				if err := s.AddAudit(ctx, q.ID, refusal(now.Add(time.Duration(i)*time.Millisecond), user)); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("AddAudit: %v", err)
	}
	log := mustAudit(t, s, q.ID)
	count := map[string]int{}
	for _, e := range log[1:] {
		count[e.By.User]++
	}
	if len(log) != 1+2*each || count["U1"] != each || count["U2"] != each {
		t.Fatalf("audit holds %d entries (%v), want the ask and %d of each", len(log), count, each)
	}
}

// editor returns s's AuditEditor.
func editor(t *testing.T, s broker.Store) AuditEditor {
	t.Helper()
	ed, ok := s.(AuditEditor)
	if !ok {
		t.Fatalf("%T has no EditAuditEntry and RemoveAuditEntry: its tests must give it AuditEditor", s)
	}
	return ed
}

// trail makes a question with its ask and three refusals (seq 2–4).
func trail(t *testing.T, s broker.Store) *broker.Question {
	t.Helper()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	for i, u := range []string{"U1", "U2", "U3"} {
		if err := s.AddAudit(context.Background(), q.ID, refusal(now.Add(time.Duration(i+1)*time.Second), u)); err != nil {
			t.Fatalf("AddAudit: %v", err)
		}
	}
	mustAudit(t, s, q.ID)
	return q
}

func testAuditEdited(t *testing.T, s broker.Store) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		seq  int64
		edit func(raw string) string
		want string
	}{
		{"who", 3, func(raw string) string { return strings.Replace(raw, `"U2"`, `"U7"`, 1) }, "entry 3 (refused) was changed"},
		{"kind", 2, func(raw string) string { return strings.Replace(raw, `"refused"`, `"vote"`, 1) }, "entry 2 (vote) was changed"},
		{"time", 4, func(raw string) string { return strings.Replace(raw, `"at":"20`, `"at":"19`, 1) }, "entry 4 (refused) was changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := trail(t, s)
			if err := editor(t, s).EditAuditEntry(ctx, q.ID, tc.seq, tc.edit); err != nil {
				t.Fatalf("EditAuditEntry: %v", err)
			}
			log, err := s.Audit(ctx, q.ID)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			ok, bad, why := broker.VerifyAudit(log)
			if ok || bad != int(tc.seq) || !strings.HasPrefix(why, tc.want) {
				t.Fatalf("VerifyAudit after editing entry %d = %v, %d, %q; want entry %d named: %q", tc.seq, ok, bad, why, tc.seq, tc.want)
			}
		})
	}
}

func testAuditRemoved(t *testing.T, s broker.Store) {
	ctx := context.Background()
	q := trail(t, s)
	if err := editor(t, s).RemoveAuditEntry(ctx, q.ID, 3); err != nil {
		t.Fatalf("RemoveAuditEntry: %v", err)
	}
	log, err := s.Audit(ctx, q.ID)
	if err != nil || len(log) != 3 {
		t.Fatalf("Audit after removing entry 3: %d entries, %v; want 3", len(log), err)
	}
	ok, bad, why := broker.VerifyAudit(log)
	if ok || bad != 3 || !strings.HasPrefix(why, "entry 3 is missing") {
		t.Fatalf("VerifyAudit after removing entry 3 = %v, %d, %q; want entry 3 missing", ok, bad, why)
	}
	// An entry appended after the removal still follows the entry before
	// it, and the gap stays shown.
	if err := s.AddAudit(ctx, q.ID, refusal(baseTime(), "U4")); err != nil {
		t.Fatalf("AddAudit after the removal: %v", err)
	}
	log, _ = s.Audit(ctx, q.ID)
	if ok, bad, _ := broker.VerifyAudit(log); ok || bad != 3 {
		t.Fatalf("VerifyAudit after a later append = %v, %d; want entry 3 still missing", ok, bad)
	}
}

// testAuditSurvivesPurge purges a resolved question: its trail stays,
// verified, and its id stays taken; no entry can be added any more. The
// audit purge removes the trail once its newest entry is older than its
// horizon, and not before.
func testAuditSurvivesPurge(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	if err := s.AddAudit(ctx, q.ID, refusal(now.Add(time.Second), "U1")); err != nil {
		t.Fatalf("AddAudit: %v", err)
	}
	mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: "done", ResolvedAt: now.Add(2 * time.Second)})
	if n, err := s.Purge(ctx, now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want the question removed", n, err)
	}
	if _, err := s.Get(ctx, q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Get after Purge: %v, want ErrNotFound", err)
	}
	log := mustAudit(t, s, q.ID)
	if got := auditKinds(log); got != "asked,refused,resolved" {
		t.Fatalf("audit after Purge = %s, want asked,refused,resolved", got)
	}
	if log[2].Status != broker.StatusCancelled || log[2].Detail != "done" {
		t.Fatalf("resolution entry = %+v", log[2])
	}
	wantErr(t, "AddAudit to a purged question", s.AddAudit(ctx, q.ID, refusal(now, "U2")), broker.ErrNotFound)
	again := NewQuestion(q.ID, "a2", now.Add(time.Hour))
	_, _, err := s.Create(ctx, again, nil)
	wantErr(t, "Create with the id of a purged question whose trail is kept", err, broker.ErrIDTaken)
	if got := auditKinds(mustAudit(t, s, q.ID)); got != "asked,refused,resolved" {
		t.Fatalf("audit after the refused Create = %s", got)
	}
	if _, err := s.PurgeAudit(ctx, now.Add(time.Second)); err != nil {
		t.Fatalf("PurgeAudit before the newest entry: %v", err)
	}
	mustAudit(t, s, q.ID)
	if n, err := s.PurgeAudit(ctx, now.Add(time.Hour)); err != nil {
		t.Fatalf("PurgeAudit = %d, %v", n, err)
	}
	if entries, err := s.AuditSince(ctx, broker.AuditFilter{Since: now.Add(-time.Hour)}); err != nil || len(entries) != 0 {
		t.Fatalf("AuditSince after PurgeAudit = %d entries, %v; want none", len(entries), err)
	}
	if _, ok := s.(broker.AuditRetainer); !ok {
		// A store whose trails do not expire by themselves removes
		// them in PurgeAudit.
		_, err := s.Audit(ctx, q.ID)
		wantErr(t, "Audit after PurgeAudit", err, broker.ErrNotFound)
	}
}

// testAuditExport exports from a time on, for every agent and for one:
// oldest first, the entries before the time left out.
func testAuditExport(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q1 := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	q2 := mustCreate(t, s, NewQuestion(broker.NewID(), "a2", now.Add(time.Second)))
	if err := s.AddAudit(ctx, q1.ID, refusal(now.Add(3*time.Second), "U1")); err != nil {
		t.Fatal(err)
	}
	if err := s.AddAudit(ctx, q2.ID, refusal(now.Add(2*time.Second), "U2")); err != nil {
		t.Fatal(err)
	}
	type pos struct {
		q    string
		seq  int64
		kind string
	}
	read := func(f broker.AuditFilter) []pos {
		t.Helper()
		entries, err := s.AuditSince(ctx, f)
		if err != nil {
			t.Fatalf("AuditSince(%+v): %v", f, err)
		}
		out := make([]pos, len(entries))
		for i, e := range entries {
			out[i] = pos{e.Question, e.Seq, e.Kind}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    broker.AuditFilter
		want []pos
	}{
		{"everyone's since the second ask", broker.AuditFilter{Since: now.Add(time.Second)},
			[]pos{{q2.ID, 1, "asked"}, {q2.ID, 2, "refused"}, {q1.ID, 2, "refused"}}},
		{"a1's since the start", broker.AuditFilter{Since: now, Agent: "a1"},
			[]pos{{q1.ID, 1, "asked"}, {q1.ID, 2, "refused"}}},
		{"a2's since after its refusal", broker.AuditFilter{Since: now.Add(2*time.Second + time.Millisecond), Agent: "a2"}, []pos{}},
		{"an agent with none", broker.AuditFilter{Since: now, Agent: "a3"}, []pos{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(tc.f)
			if len(got) != len(tc.want) {
				t.Fatalf("AuditSince = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("AuditSince = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// testAuditExportPaged reads entries that share their time page by page,
// resuming after the last one read: each comes once, in order.
func testAuditExportPaged(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	for range 3 {
		q := NewQuestion(broker.NewID(), "a1", now)
		mustCreateInProcess(t, s, q, q.Targets)
	}
	want := 3 * 2 // each ask and its web copy, all at now
	f := broker.AuditFilter{Since: now, Limit: 4}
	var got []broker.AuditEntry
	for range 10 {
		page, err := s.AuditSince(ctx, f)
		if err != nil {
			t.Fatalf("AuditSince(%+v): %v", f, err)
		}
		got = append(got, page...)
		if len(page) < f.Limit {
			break
		}
		last := page[len(page)-1]
		f.Since, f.AfterQuestion, f.AfterSeq = last.At, last.Question, last.Seq
	}
	if len(got) != want {
		t.Fatalf("paged export gave %d entries, want %d: %+v", len(got), want, got)
	}
	seen := map[string]bool{}
	for i, e := range got {
		k := fmt.Sprint(e.Question, ".", e.Seq)
		if seen[k] {
			t.Fatalf("entry %s came twice", k)
		}
		seen[k] = true
		if i > 0 && (e.Question < got[i-1].Question || e.Question == got[i-1].Question && e.Seq < got[i-1].Seq) {
			t.Fatalf("entries out of order: %s.%d after %s.%d", e.Question, e.Seq, got[i-1].Question, got[i-1].Seq)
		}
	}
}

func testAuditExportBad(t *testing.T, s broker.Store) {
	ctx := context.Background()
	mustCreate(t, s, NewQuestion(broker.NewID(), "a1", baseTime()))
	for _, tc := range []struct {
		name string
		f    broker.AuditFilter
	}{
		{"no time", broker.AuditFilter{}},
		{"a negative limit", broker.AuditFilter{Since: baseTime(), Limit: -1}},
		{"a limit past the page", broker.AuditFilter{Since: baseTime(), Limit: broker.MaxAuditPage + 1}},
		{"a seq of 0 to resume after", broker.AuditFilter{Since: baseTime(), AfterQuestion: broker.NewID()}},
		{"no question id to resume after", broker.AuditFilter{Since: baseTime(), AfterQuestion: "x:1", AfterSeq: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.AuditSince(ctx, tc.f)
			wantErr(t, "AuditSince", err, broker.ErrInvalid)
		})
	}
}
