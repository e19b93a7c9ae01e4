package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// TestReadsAreCopies checks that a question read again unchanged comes
// as a copy of its own: changing what Create or Get returned changes
// nothing the next read sees.
func TestReadsAreCopies(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	q := brokertest.FullQuestion(broker.NewID(), "a", time.Now())
	created, _, err := s.Create(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := created.Clone()
	spoil := func(q *broker.Question) {
		q.Agent = "spoiled"
		q.Prompts[0].Question = "spoiled"
		q.Prompts[0].Options = append(q.Prompts[0].Options[:0], broker.Option{Label: "spoiled"})
		q.Targets[0].Channel = "spoiled"
	}
	spoil(created)
	for i := range 3 {
		got, err := s.Get(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(got, want) {
			t.Fatalf("read %d: got %+v, want %+v", i+1, got, want)
		}
		spoil(got)
	}
}

// TestReadsSeeEveryChange checks that a read after a change, by this
// store or by another process on the same file, returns the new state,
// never one decoded before.
func TestReadsSeeEveryChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	a, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	q := brokertest.NewQuestion(broker.NewID(), "a", now)
	if _, _, err := a.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	// A change by this store.
	if _, err := a.SaveProgress(ctx, q.ID, 0, broker.Answer{Selected: []string{"SQLite"}}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ProgressCount() != 1 {
		t.Fatalf("after saving progress: %d prompts answered, want 1", got.ProgressCount())
	}
	// The other process saw the question before the change: it reads the
	// change, and then the resolution by the first.
	if got, err := b.Get(ctx, q.ID); err != nil || got.ProgressCount() != 1 {
		t.Fatalf("other process after saving progress: %v, %v", got, err)
	}
	r := broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now,
		Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}}
	if _, err := a.Resolve(ctx, q.ID, r); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*sqlite.Store{"same process": a, "other process": b} {
		got, err := s.Get(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != broker.StatusAnswered {
			t.Errorf("%s: status %s after the resolution, want answered", name, got.Status)
		}
	}
	// Purged questions are gone for every reader.
	if n, err := a.Purge(ctx, now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d, %v", n, err)
	}
	if _, err := a.Get(ctx, q.ID); err == nil {
		t.Fatal("read a purged question")
	}
}

// TestCreateReturnsWhatItStored checks that the question Create returns,
// which it copies instead of decoding the text it stored, is that text
// decoded: field for field for questions as the broker makes them, and
// as JSON for any question, where a time's zone or an empty list that
// the text leaves out may differ in Go but not in what anyone reads.
func TestCreateReturnsWhatItStored(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	berlin := time.FixedZone("CET", 3600)
	now := time.Now() // monotonic, in the local zone, with nanoseconds
	empties := brokertest.NewQuestion(broker.NewID(), "a", now)
	empties.Targets, empties.Responders, empties.Reminders = []broker.Target{}, []string{}, []time.Time{}
	empties.Selections, empties.Progress = map[int][]int{}, []*broker.Answer{}
	empties.Prompts[0].Default = broker.StringList{}
	mended := brokertest.NewQuestion(broker.NewID(), "a", now)
	mended.Context = "not UTF-8: \xff"
	snoozed := brokertest.FullQuestion(broker.NewID(), "a", now)
	snoozed.CreatedAt, snoozed.ExpiresAt = now.In(berlin), now.Add(time.Hour).In(berlin)
	snoozed.Policy = broker.Policy{Quorum: 2, TimeoutMax: broker.Duration(90*time.Minute + 1500*time.Millisecond)}
	for _, c := range []struct {
		name      string
		q         *broker.Question
		inProcess []broker.Target
		fieldwise bool
	}{
		{"new", brokertest.NewQuestion(broker.NewID(), "a", now), nil, true},
		{"full", brokertest.FullQuestion(broker.NewID(), "agent-ü", now), nil, true},
		{"zones and policy", snoozed, []broker.Target{{Channel: "web"}}, true},
		{"empty lists", empties, nil, false},
		{"text not UTF-8", mended, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, created, err := s.Create(ctx, c.q, c.inProcess)
			if err != nil || !created {
				t.Fatalf("Create: %v (created %v)", err, created)
			}
			var raw []byte
			if err := sqlite.ReaderDB(s).QueryRowContext(ctx, `SELECT data FROM questions WHERE id = ?`, c.q.ID).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			var decoded broker.Question
			if err := json.Unmarshal(raw, &decoded); err != nil {
				t.Fatal(err)
			}
			enc, _ := json.Marshal(got)
			if again, _ := json.Marshal(&decoded); string(enc) != string(again) {
				t.Fatalf("Create returned\n%s\nand stored\n%s", enc, raw)
			}
			if c.fieldwise && !reflect.DeepEqual(got, &decoded) {
				t.Fatalf("Create returned %#v,\nthe stored text decodes to %#v", got, &decoded)
			}
		})
	}
}
