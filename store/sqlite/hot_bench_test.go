package sqlite_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// defaultTargets are the targets of the default route: the web inbox and
// the text channel.
var defaultTargets = []broker.Target{{Channel: "web"}, {Channel: "cli"}}

// hotQuestion is a question of the default route.
func hotQuestion(id string, now time.Time) *broker.Question {
	q := brokertest.NewQuestion(id, "bench", now)
	q.Targets = defaultTargets
	return q
}

// hotCopies is the in-process targets Create is given for a hotQuestion:
// inProcess says whether the broker makes its copies itself (no post
// tasks) or through the outbox, as remote channels' copies are.
func hotCopies(inProcess bool) []broker.Target {
	if inProcess {
		return defaultTargets
	}
	return nil
}

// hotCases runs fn for copies made in-process and through the outbox.
func hotCases(b *testing.B, fn func(b *testing.B, inProcess bool)) {
	b.Run("in-process", func(b *testing.B) { fn(b, true) })
	b.Run("outbox", func(b *testing.B) { fn(b, false) })
}

// BenchmarkCreateDefault is the Create of an ask on the default route;
// "keyed" carries a session and a new tool call id each time, as agents
// send them on every ask but a retry.
func BenchmarkCreateDefault(b *testing.B) {
	hotCases(b, func(b *testing.B, inProcess bool) { benchCreate(b, inProcess, false) })
	b.Run("keyed", func(b *testing.B) { benchCreate(b, true, true) })
}

func benchCreate(b *testing.B, inProcess, keyed bool) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	ids := benchIDs(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		q := hotQuestion(ids[i], now)
		if keyed {
			q.SessionID, q.ToolCallID = "session-"+strconv.Itoa(i%100), "call-"+strconv.Itoa(i)
		}
		if _, created, err := s.CreateCapped(ctx, q, hotCopies(inProcess), 1<<30); err != nil || !created {
			b.Fatalf("Create %s: created=%v, %v", q.ID, created, err)
		}
	}
}

// BenchmarkResolveDefault is the Resolve of an answer to a question of
// the default route.
func BenchmarkResolveDefault(b *testing.B) {
	hotCases(b, func(b *testing.B, inProcess bool) {
		s := openTemp(b)
		ctx := context.Background()
		now := time.Now()
		ids := benchIDs(b.N)
		for _, id := range ids {
			if _, _, err := s.Create(ctx, hotQuestion(id, now), hotCopies(inProcess)); err != nil {
				b.Fatal(err)
			}
		}
		r := broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now,
			Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if _, err := s.Resolve(ctx, ids[i], r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGet reads one question, as every wait, command and result does.
func BenchmarkGet(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	q := brokertest.FullQuestion(broker.NewID(), "bench", time.Now())
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Get(ctx, q.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimPlatformWork claims the one due post task of a question
// and records its outcome as a retry due a millisecond later, as an
// attempt of the outbox does.
func BenchmarkClaimPlatformWork(b *testing.B) {
	for _, name := range []string{"any", "of-question"} {
		b.Run(name, func(b *testing.B) {
			s := openTemp(b)
			ctx := context.Background()
			now := time.Now()
			q := hotQuestion(broker.NewID(), now)
			q.Targets = q.Targets[:1]
			if _, _, err := s.Create(ctx, q, nil); err != nil {
				b.Fatal(err)
			}
			id := ""
			if name == "of-question" {
				id = q.ID
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				at := now.Add(time.Duration(i) * time.Millisecond)
				got, err := s.ClaimPlatformWork(ctx, id, at, 8, time.Minute)
				if err != nil || len(got) != 1 {
					b.Fatalf("claim %d: %d tasks, %v", i, len(got), err)
				}
				t := got[0]
				t.State, t.NextAt, t.UpdatedAt = broker.TaskRetrying, at.Add(time.Millisecond), at
				if err := s.UpdatePlatformWork(ctx, t); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClaimPlatformNothingDue is the outbox's poll when nothing is
// due.
func BenchmarkClaimPlatformNothingDue(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if got, err := s.ClaimPlatformWork(ctx, "", now, 8, time.Minute); err != nil || len(got) != 0 {
			b.Fatalf("claim: %d tasks, %v", len(got), err)
		}
	}
}
