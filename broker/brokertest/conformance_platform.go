package brokertest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var platformOutboxTests = []storeTest{
	{"CreateWritesPosts", testPostTasksOnCreate},
	{"ResolveWritesEdits", testEditTasksOnResolve},
	{"ResolveDatedLaterEditsNow", testEditTasksDueAtOnce},
	{"ClaimHolds", testTaskClaimHold},
	{"UpdateFencedByClaim", testTaskUpdateFenced},
	{"RenewedWhileClaimed", testTaskRenewedWhileClaimed},
	{"ClaimedOnceUnderConcurrency", testTaskClaimRace},
	{"BadInput", testTaskBadInput},
	{"Backlog", testTaskBacklog},
	{"Pace", testPace},
	{"NextDue", testNextPlatformWork},
}

var twoTargets = []broker.Target{{Channel: "slack", Chat: "C1"}, {Channel: "telegram", Chat: "-100"}}

func tasksOf(t *testing.T, s broker.Store, id string) []broker.PlatformTask {
	t.Helper()
	ts, err := s.PlatformWork(context.Background(), id)
	if err != nil {
		t.Fatalf("PlatformWork(%s): %v", id, err)
	}
	return ts
}

func claimTasks(t *testing.T, s broker.Store, id string, now time.Time, limit int, hold time.Duration) []broker.PlatformTask {
	t.Helper()
	ts, err := s.ClaimPlatformWork(context.Background(), id, now, limit, hold)
	if err != nil {
		t.Fatalf("ClaimPlatformWork(%q): %v", id, err)
	}
	// Claims come in no promised order: posts first, then by question
	// and target.
	slices.SortStableFunc(ts, func(a, b broker.PlatformTask) int {
		rank := func(x broker.PlatformTask) int {
			if x.Kind == broker.TaskPost {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.QuestionID, b.QuestionID),
			cmp.Compare(a.Target.Channel, b.Target.Channel), cmp.Compare(a.Target.Chat, b.Target.Chat))
	})
	return ts
}

func taskNames(ts []broker.PlatformTask) []string {
	out := make([]string, len(ts))
	for i, x := range ts {
		out[i] = fmt.Sprintf("%s %s %s", x.QuestionID, x.Kind, x.Target)
	}
	return out
}

func withTargets(id string, now time.Time) *broker.Question {
	q := NewQuestion(id, "a1", now)
	q.Targets = twoTargets
	return q
}

func testPostTasksOnCreate(t *testing.T, s broker.Store) {
	now := baseTime()
	q := withTargets(broker.NewID(), now)
	q.ToolCallID = "call-1"
	mustCreate(t, s, q)
	again := withTargets(broker.NewID(), now)
	again.ToolCallID = "call-1"
	if _, created, err := s.Create(context.Background(), again, nil); err != nil || created {
		t.Fatalf("Create with the same tool_call_id: created %v, err %v; want the first question", created, err)
	}
	ts := tasksOf(t, s, q.ID)
	if len(ts) != 2 {
		t.Fatalf("tasks after Create = %v, want one post per target", taskNames(ts))
	}
	for i, x := range ts {
		if x.Kind != broker.TaskPost || x.Target != twoTargets[i] || x.State != broker.TaskQueued || x.Attempts != 0 || x.Gen != 1 || x.MessageID != "" {
			t.Fatalf("task %d = %+v, want a queued post to %s", i, x, twoTargets[i])
		}
		sameTime(t, "post deadline", x.Deadline, q.ExpiresAt)
		sameTime(t, "post due", x.NextAt, now)
	}
	if ts := tasksOf(t, s, again.ID); len(ts) != 0 {
		t.Fatalf("tasks of a question not created = %v, want none", taskNames(ts))
	}
}

func testEditTasksOnResolve(t *testing.T, s broker.Store) {
	now := baseTime()
	q := withTargets(broker.NewID(), now.Add(-time.Minute))
	mustCreate(t, s, q)
	mustResolve(t, s, q.ID, answeredAt(now, "Postgres"))
	ts := tasksOf(t, s, q.ID)
	if len(ts) != 4 {
		t.Fatalf("tasks after Resolve = %v, want a post and an edit per target", taskNames(ts))
	}
	for i, x := range ts[2:] {
		if x.Kind != broker.TaskEdit || x.Target != twoTargets[i] || x.State != broker.TaskQueued || x.Gen != 1 {
			t.Fatalf("edit task %d = %+v, want a queued edit of %s", i, x, twoTargets[i])
		}
		sameTime(t, "edit deadline", x.Deadline, now.Add(broker.EditWindow))
		sameTime(t, "edit due", x.NextAt, now)
	}
	// A resolution refused changes no task.
	if _, err := s.Resolve(context.Background(), q.ID, answeredAt(now.Add(time.Second), "SQLite")); !errors.Is(err, broker.ErrClosed) {
		t.Fatalf("second Resolve: %v, want ErrClosed", err)
	}
	for _, x := range tasksOf(t, s, q.ID)[2:] {
		if x.Gen != 1 {
			t.Fatalf("edit task after a refused Resolve = %+v, want generation 1", x)
		}
	}
}

func testTaskClaimHold(t *testing.T, s broker.Store) {
	now := baseTime()
	a := withTargets(broker.NewID(), now)
	b := withTargets(broker.NewID(), now.Add(time.Millisecond))
	mustCreate(t, s, a)
	mustCreate(t, s, b)
	if got := claimTasks(t, s, "", now.Add(-time.Second), 10, time.Minute); len(got) != 0 {
		t.Fatalf("claim before anything is due = %v, want none", taskNames(got))
	}
	mine := claimTasks(t, s, a.ID, now, 10, time.Minute)
	if len(mine) != 2 || mine[0].QuestionID != a.ID || mine[1].QuestionID != a.ID {
		t.Fatalf("claim of question %s = %v, want its two posts", a.ID, taskNames(mine))
	}
	for _, x := range mine {
		sameTime(t, "claim", x.Claim, now.Add(time.Minute))
	}
	rest := claimTasks(t, s, "", now.Add(time.Second), 10, time.Minute)
	if len(rest) != 2 || rest[0].QuestionID != b.ID || rest[1].QuestionID != b.ID {
		t.Fatalf("claim of anything after %s was claimed = %v, want the posts of %s", a.ID, taskNames(rest), b.ID)
	}
	if got := claimTasks(t, s, "", now.Add(30*time.Second), 10, time.Minute); len(got) != 0 {
		t.Fatalf("claim while every task is held = %v, want none", taskNames(got))
	}
	again := claimTasks(t, s, "", now.Add(2*time.Minute), 1, time.Minute)
	if len(again) != 1 || again[0].QuestionID != a.ID {
		t.Fatalf("claim of 1 after the holds ran out = %v, want the earliest, of %s", taskNames(again), a.ID)
	}
}

func testTaskUpdateFenced(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := withTargets(broker.NewID(), now)
	mustCreate(t, s, q)
	first := claimTasks(t, s, q.ID, now, 1, time.Second)
	if len(first) != 1 {
		t.Fatalf("claim = %v, want one task", taskNames(first))
	}
	second := claimTasks(t, s, q.ID, now.Add(2*time.Second), 2, time.Minute)
	if len(second) != 2 {
		t.Fatalf("claim after the first hold ran out = %v, want both tasks", taskNames(second))
	}
	late := first[0]
	late.State, late.Attempts, late.UpdatedAt = broker.TaskDone, 1, now.Add(3*time.Second)
	if err := s.UpdatePlatformWork(ctx, late); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("update under a claim that ran out: %v, want ErrConflict", err)
	}
	done := second[0]
	done.State, done.Attempts, done.MessageID, done.UpdatedAt = broker.TaskDone, 1, "m-1", now.Add(3*time.Second)
	if err := s.UpdatePlatformWork(ctx, done); err != nil {
		t.Fatalf("update under the current claim: %v", err)
	}
	if err := s.UpdatePlatformWork(ctx, done); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("second update under the same claim: %v, want ErrConflict", err)
	}
	retry := second[1]
	retry.State, retry.Attempts, retry.ErrorClass, retry.LastError = broker.TaskRetrying, 1, broker.FailUnreachable, "no answer: connection lost"
	retry.NextAt, retry.UpdatedAt = now.Add(time.Hour), now.Add(3*time.Second)
	if err := s.UpdatePlatformWork(ctx, retry); err != nil {
		t.Fatalf("update to retrying: %v", err)
	}
	ts := tasksOf(t, s, q.ID)
	if ts[0].State != broker.TaskDone || ts[0].MessageID != "m-1" || ts[0].Attempts != 1 {
		t.Fatalf("done task = %+v, want done with message m-1 after 1 attempt", ts[0])
	}
	if ts[1].State != broker.TaskRetrying || ts[1].ErrorClass != broker.FailUnreachable || ts[1].LastError != "no answer: connection lost" || ts[1].Attempts != 1 {
		t.Fatalf("retrying task = %+v, want retrying after 1 attempt, class unreachable, last error as recorded", ts[1])
	}
	if ts[0].ErrorClass != "" || ts[0].LastError != "" {
		t.Fatalf("done task = %+v, want no error", ts[0])
	}
	sameTime(t, "retry due", ts[1].NextAt, now.Add(time.Hour))
	if got := claimTasks(t, s, "", now.Add(time.Minute*59), 10, time.Minute); len(got) != 0 {
		t.Fatalf("claim before the retry is due = %v, want none (a done task is never claimed)", taskNames(got))
	}
	if got := claimTasks(t, s, "", now.Add(time.Hour), 10, time.Minute); len(got) != 1 || got[0].Target != twoTargets[1] {
		t.Fatalf("claim when the retry is due = %v, want the retry", taskNames(got))
	}
}

func testTaskRenewedWhileClaimed(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := withTargets(broker.NewID(), now)
	q.Targets = twoTargets[:1]
	mustCreate(t, s, q)
	edit := []broker.Target{twoTargets[0]}
	if err := s.EnqueuePlatformWork(ctx, q.ID, broker.TaskEdit, edit, now, now.Add(time.Hour)); err != nil {
		t.Fatalf("EnqueuePlatformWork: %v", err)
	}
	got := claimTasks(t, s, q.ID, now, 10, time.Minute)
	if len(got) != 2 || got[1].Kind != broker.TaskEdit || got[1].Gen != 1 {
		t.Fatalf("claim = %v, want the post and the edit (generation 1)", taskNames(got))
	}
	old := got[1]
	// Asked again while an attempt is under way: the claim stays.
	if err := s.EnqueuePlatformWork(ctx, q.ID, broker.TaskEdit, edit, now.Add(time.Second), now.Add(2*time.Hour)); err != nil {
		t.Fatalf("EnqueuePlatformWork again: %v", err)
	}
	if got := claimTasks(t, s, q.ID, now.Add(2*time.Second), 10, time.Minute); len(got) != 0 {
		t.Fatalf("claim while the edit is under way = %v, want none", taskNames(got))
	}
	old.State, old.Attempts, old.UpdatedAt = broker.TaskDone, 1, now.Add(3*time.Second)
	if err := s.UpdatePlatformWork(ctx, old); err != nil {
		t.Fatalf("update of the older generation: %v", err)
	}
	ts := tasksOf(t, s, q.ID)
	if ts[1].State != broker.TaskQueued || ts[1].Gen != 2 {
		t.Fatalf("edit after the older attempt finished = %+v, want queued at generation 2", ts[1])
	}
	sameTime(t, "renewed edit deadline", ts[1].Deadline, now.Add(2*time.Hour))
	next := claimTasks(t, s, q.ID, now.Add(3*time.Second), 10, time.Minute)
	if len(next) != 1 || next[0].Gen != 2 {
		t.Fatalf("claim after the older attempt = %v, want the edit at generation 2", taskNames(next))
	}
	next[0].State, next[0].Attempts, next[0].UpdatedAt = broker.TaskFailed, 2, now.Add(4*time.Second)
	next[0].ErrorClass, next[0].LastError = broker.FailPermanent, "message to edit not found"
	if err := s.UpdatePlatformWork(ctx, next[0]); err != nil {
		t.Fatalf("update of the newest generation: %v", err)
	}
	if ts := tasksOf(t, s, q.ID); ts[1].State != broker.TaskFailed || ts[1].ErrorClass != broker.FailPermanent || ts[1].LastError != "message to edit not found" {
		t.Fatalf("edit = %+v, want failed for good with its class and text", ts[1])
	}
	// A finished task asked for again starts over, without the error.
	if err := s.EnqueuePlatformWork(ctx, q.ID, broker.TaskEdit, edit, now.Add(5*time.Second), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ts := tasksOf(t, s, q.ID); ts[1].State != broker.TaskQueued || ts[1].Attempts != 0 || ts[1].Gen != 3 || ts[1].ErrorClass != "" || ts[1].LastError != "" {
		t.Fatalf("finished edit asked for again = %+v, want queued, no attempts, no error, generation 3", ts[1])
	}
}

func testTaskClaimRace(t *testing.T, s broker.Store) {
	now := baseTime()
	var want []string
	for range 10 {
		q := withTargets(broker.NewID(), now)
		mustCreate(t, s, q)
		for _, tg := range twoTargets {
			want = append(want, fmt.Sprintf("%s post %s", q.ID, tg))
		}
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				got, err := s.ClaimPlatformWork(context.Background(), "", now, 3, time.Hour)
				if err != nil {
					t.Errorf("ClaimPlatformWork: %v", err)
					return
				}
				mu.Lock()
				for _, n := range taskNames(got) {
					seen[n]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, n := range want {
		if seen[n] != 1 {
			t.Errorf("task %s claimed %d times, want once", n, seen[n])
		}
	}
}

func testTaskBadInput(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := withTargets(broker.NewID(), now)
	mustCreate(t, s, q)
	if err := s.EnqueuePlatformWork(ctx, q.ID, "shout", twoTargets, now, now); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("enqueue of an unknown kind: %v, want ErrInvalid", err)
	}
	if err := s.EnqueuePlatformWork(ctx, q.ID, broker.TaskEdit, []broker.Target{{Chat: "x"}}, now, now); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("enqueue to a target with no channel: %v, want ErrInvalid", err)
	}
	if err := s.EnqueuePlatformWork(ctx, "zzzzzz", broker.TaskEdit, twoTargets, now, now); !errors.Is(err, broker.ErrNotFound) {
		t.Errorf("enqueue for an unknown question: %v, want ErrNotFound", err)
	}
	if ts := tasksOf(t, s, q.ID); len(ts) != 2 {
		t.Errorf("tasks after refused enqueues = %v, want the two posts only", taskNames(ts))
	}
	got := claimTasks(t, s, q.ID, now, 1, time.Minute)
	bad := got[0]
	bad.State = "posted"
	if err := s.UpdatePlatformWork(ctx, bad); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("update to an unknown state: %v, want ErrInvalid", err)
	}
	bad = got[0]
	bad.State, bad.ErrorClass = broker.TaskRetrying, "flaky"
	if err := s.UpdatePlatformWork(ctx, bad); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("update with an unknown error class: %v, want ErrInvalid", err)
	}
	bad = got[0]
	bad.State, bad.Claim = broker.TaskDone, time.Time{}
	if err := s.UpdatePlatformWork(ctx, bad); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("update without a claim: %v, want ErrInvalid", err)
	}
	if _, err := s.ClaimPlatformWork(ctx, "", now, 1, 0); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("claim with no hold: %v, want ErrInvalid", err)
	}
	if ts := tasksOf(t, s, q.ID); ts[0].State != broker.TaskQueued {
		t.Errorf("task after refused updates = %+v, want still queued", ts[0])
	}
	if _, _, err := s.Pace(ctx, "", time.Second, now, 0); !errors.Is(err, broker.ErrInvalid) {
		t.Errorf("pace with no key: %v, want ErrInvalid", err)
	}
}

func testTaskBacklog(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	a := withTargets(broker.NewID(), now.Add(-time.Minute))
	b := withTargets(broker.NewID(), now)
	b.Targets = twoTargets[:1]
	mustCreate(t, s, a)
	mustCreate(t, s, b)
	got := claimTasks(t, s, b.ID, now, 1, time.Minute)
	got[0].State, got[0].Attempts, got[0].UpdatedAt = broker.TaskDone, 1, now
	if err := s.UpdatePlatformWork(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	bl, err := s.PlatformBacklog(ctx)
	if err != nil {
		t.Fatalf("PlatformBacklog: %v", err)
	}
	if len(bl) != 2 || bl[0].Channel != "slack" || bl[0].Depth != 1 || bl[1].Channel != "telegram" || bl[1].Depth != 1 {
		t.Fatalf("backlog = %+v, want one slack and one telegram task", bl)
	}
	sameTime(t, "oldest slack task", bl[0].Oldest, now.Add(-time.Minute))
}

func testPace(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	key := "telegram:chat:" + broker.NewID()
	var slots []time.Time
	for range 3 {
		at, ok, err := s.Pace(ctx, key, 100*time.Millisecond, now, time.Second)
		if err != nil || !ok {
			t.Fatalf("Pace: %v, %v; want a slot", ok, err)
		}
		slots = append(slots, at)
	}
	for i, at := range slots {
		sameTime(t, fmt.Sprintf("slot %d", i), at, now.Add(time.Duration(i)*100*time.Millisecond))
	}
	at, ok, err := s.Pace(ctx, key, 100*time.Millisecond, now, 250*time.Millisecond)
	if err != nil || ok {
		t.Fatalf("Pace beyond the wait allowed: ok %v, err %v; want no slot", ok, err)
	}
	sameTime(t, "next free slot", at, now.Add(300*time.Millisecond))
	if err := s.HoldPace(ctx, key, now.Add(10*time.Second)); err != nil {
		t.Fatalf("HoldPace: %v", err)
	}
	if err := s.HoldPace(ctx, key, now.Add(time.Second)); err != nil {
		t.Fatalf("HoldPace earlier: %v", err)
	}
	at, ok, err = s.Pace(ctx, key, 100*time.Millisecond, now, time.Minute)
	if err != nil || !ok {
		t.Fatalf("Pace after a hold: %v, %v", ok, err)
	}
	sameTime(t, "slot after a hold", at, now.Add(10*time.Second))
	other, ok, err := s.Pace(ctx, key+"x", 100*time.Millisecond, now, 0)
	if err != nil || !ok {
		t.Fatalf("Pace of another key: %v, %v", ok, err)
	}
	sameTime(t, "slot of another key", other, now)
}

// A resolution dated later than now (a timeout recorded at its deadline)
// has its edits due at once, given up a day after the resolution.
func testEditTasksDueAtOnce(t *testing.T, s broker.Store) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := withTargets(broker.NewID(), now)
	mustCreate(t, s, q)
	mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusTimedOut, ResolvedAt: q.ExpiresAt})
	got := claimTasks(t, s, q.ID, time.Now(), 10, time.Minute)
	edits := 0
	for _, x := range got {
		if x.Kind == broker.TaskEdit {
			edits++
			sameTime(t, "edit deadline", x.Deadline, q.ExpiresAt.Add(broker.EditWindow))
		}
	}
	if edits != 2 {
		t.Fatalf("claim right after a resolution dated %s = %v, want both edits", q.ExpiresAt, taskNames(got))
	}
}
