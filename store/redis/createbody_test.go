package redis_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestCreateKeepsItsBodyAsDecoded: the store that creates a question keeps
// its body as a question, not decoded, when a copy is what decoding gives
// (a question as the broker makes it), and decodes it on first use
// otherwise. Either way it reads the question exactly as another store on
// the same Redis, which decodes the body, reads it.
func TestCreateKeepsItsBodyAsDecoded(t *testing.T) {
	cfg := redistest.Shared(t)
	here, elsewhere := open(t, cfg), open(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	local := brokertest.NewQuestion(broker.NewID(), "a", now)
	local.ExpiresAt = time.Now().Add(time.Hour) // monotonic, in the local zone
	zoned := brokertest.FullQuestion(broker.NewID(), "a", now)
	zoned.ExpiresAt = now.Add(time.Hour).In(time.FixedZone("CET", 3600))
	voted := brokertest.NewQuestion(broker.NewID(), "a", now)
	voted.State.Votes = []broker.Vote{{By: broker.Responder{Channel: "slack", User: "U1"}, Choice: "SQLite", At: now}}
	mended := brokertest.NewQuestion(broker.NewID(), "a", now)
	mended.Context = "not UTF-8: \xff"
	withPolicy := brokertest.FullQuestion(broker.NewID(), "agent-b", now)
	withPolicy.Policy = broker.Policy{Quorum: 2, TimeoutMax: broker.Duration(90*time.Minute + 1500*time.Millisecond)}
	for _, c := range []struct {
		name      string
		q         *broker.Question
		inProcess []broker.Target
		kept      bool
	}{
		{"new", brokertest.NewQuestion(broker.NewID(), "a", now), nil, true},
		{"full", brokertest.FullQuestion(broker.NewID(), "agent-ü", now), nil, true},
		{"policy and in-process targets", withPolicy, []broker.Target{{Channel: "web"}}, true},
		{"local deadline", local, nil, false},
		{"zoned deadline", zoned, nil, false},
		{"votes", voted, nil, false},
		{"text not UTF-8", mended, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, created, err := here.Create(ctx, c.q, c.inProcess); err != nil || !created {
				t.Fatalf("Create: %v (created %v)", err, created)
			}
			if got := here.KeepsDecodedBody(c.q.ID); got != c.kept {
				t.Fatalf("body kept as a question: %v, want %v", got, c.kept)
			}
			for i := range 2 {
				mine, err := here.Get(ctx, c.q.ID)
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := elsewhere.Get(ctx, c.q.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(mine, theirs) {
					t.Fatalf("read %d: the creating store reads\n%#v\nanother store reads\n%#v", i+1, mine, theirs)
				}
			}
		})
	}
}

// TestResolveReturnsWhatOthersRead: the question Resolve returns, whose
// resolution it copies from the one it wrote instead of decoding the
// reply's, is the question another store on the same Redis reads.
func TestResolveReturnsWhatOthersRead(t *testing.T) {
	cfg := redistest.Shared(t)
	here, elsewhere := open(t, cfg), open(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	ana := &broker.Responder{Channel: "slack", User: "U1", Name: "Ana"}
	for name, r := range map[string]broker.Resolution{
		"answered": {Status: broker.StatusAnswered, ResolvedAt: now, AnsweredBy: ana, Answers: map[string]broker.Answer{
			"Which features?":            {Selected: []string{"Search", "Sync"}, AnsweredBy: ana},
			"Anything else? (free text)": {CustomText: "see [File #1: a.txt]", Attachments: []broker.FileRef{{N: 1, Name: "a.txt", Type: "text/plain", Size: 2}}},
		}},
		"timed out":      {Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now},
		"not UTF-8":      {Status: broker.StatusCancelled, Reason: "bad \xff byte", ResolvedAt: now},
		"zoned":          {Status: broker.StatusCancelled, Reason: "zoned", ResolvedAt: now.In(time.FixedZone("CET", 3600))},
		"no answers yet": {Status: broker.StatusAnswered, Answers: map[string]broker.Answer{}, ResolvedAt: now},
	} {
		t.Run(name, func(t *testing.T) {
			q := brokertest.FullQuestion(broker.NewID(), broker.NewID(), now)
			if _, _, err := here.Create(ctx, q, nil); err != nil {
				t.Fatal(err)
			}
			got, err := here.Resolve(ctx, q.ID, r)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := elsewhere.Get(ctx, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, theirs) {
				t.Fatalf("Resolve returned\n%#v\nanother store reads\n%#v", got, theirs)
			}
		})
	}
}

// The body keeps none of what the record holds, not even as empty
// values; a body that older versions wrote with those empty values reads
// the same.
func TestBodyLeavesOutTheRecordsFields(t *testing.T) {
	cfg := redistest.Shared(t)
	s, other := open(t, cfg), open(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := brokertest.FullQuestion(broker.NewID(), "agent-a", now)
	q.SessionID = "sess-1"
	q.Reminders = []time.Time{now.Add(time.Minute)}
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	_, bodyKey := s.BodyKeyNames(q.ID)
	raw, err := s.Client().Get(ctx, bodyKey).Result()
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"agent", "status", "created_at", "session_id", "reminders", "reminders_sent", "lease_until", "progress", "selections"} {
		if v, ok := body[k]; ok {
			t.Errorf("the body holds %q: %s", k, v)
		}
	}
	for _, k := range []string{"id", "questions", "route", "expires_at"} {
		if _, ok := body[k]; !ok {
			t.Errorf("the body lacks %q: %s", k, raw)
		}
	}
	want, err := s.Get(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want.Agent != "agent-a" || want.Status != broker.StatusPending || !want.CreatedAt.Equal(now) || want.SessionID != "sess-1" || len(want.Reminders) != 1 {
		t.Fatalf("read back as %+v", want)
	}
	head := `{"id":"` + q.ID + `",`
	if !strings.HasPrefix(raw, head) {
		t.Fatalf("the body does not start with its id: %s", raw)
	}
	older := head + `"agent":"","status":"","created_at":"0001-01-01T00:00:00Z",` + strings.TrimPrefix(raw, head)
	if err := s.Client().Set(ctx, bodyKey, older, 0).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := other.Get(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("an older body reads as\n%+v\nwant\n%+v", got, want)
	}
}
