package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestErrorClassStep16 opens a file written before schema step 16, whose
// tasks keep their error's class at the head of last_error, and checks
// that each is read with its class apart and shown as before, and that a
// task recorded after the upgrade keeps its class in its column.
func TestErrorClassStep16(t *testing.T) {
	ctx := context.Background()
	path, db := openAtStep(t, 15)
	now := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := db.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, data) VALUES ('old001', 'a', 'pending', ?, ?, '{"id":"old001","agent":"a","status":"pending"}')`,
		ms(now.Add(time.Hour)), ms(now)); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		kind, chat, state string
		attempts          int
		stored            string
		class             broker.FailureClass
		text, line        string
	}{
		{"post", "1", "retrying", 1, "timeout: the platform did not answer in time",
			broker.FailTimeout, "the platform did not answer in time", "timeout: the platform did not answer in time"},
		{"post", "2", "failed", 3, `gave up after 3 attempts: unreachable: Post "http://10.0.0.5:8080/x": EOF`,
			broker.FailUnreachable, "the platform could not be reached or did not take the call",
			"gave up after 3 attempts: unreachable: the platform could not be reached or did not take the call"},
		{"post", "3", "failed", 1, "permanent: chat not found", broker.FailPermanent, "chat not found", "permanent: chat not found"},
		{"edit", "1", "dropped", 0, "no copy to edit", "", "no copy to edit", "no copy to edit"},
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO platform_tasks (question_id, kind, channel, chat, state, attempts, next_at, deadline, last_error, created_at, updated_at)
			VALUES ('old001', ?, 'telegram', ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.kind, r.chat, r.state, r.attempts, ms(now), ms(now.Add(time.Hour)), r.stored, ms(now), ms(now)); err != nil {
			t.Fatal(err)
		}
	}
	s := reopen(t, path, db)
	tasks, err := s.PlatformWork(ctx, "old001")
	if err != nil || len(tasks) != len(rows) {
		t.Fatalf("PlatformWork after the upgrade = %v, %v; want %d tasks", tasks, err, len(rows))
	}
	for i, r := range rows {
		got := tasks[i]
		if got.ErrorClass != r.class || got.LastError != r.text || got.ErrorLine() != r.line {
			t.Errorf("task %s %s read as class %q, text %q, shown %q; want %q, %q, %q",
				got.Kind, got.Target, got.ErrorClass, got.LastError, got.ErrorLine(), r.class, r.text, r.line)
		}
	}

	claimed, err := s.ClaimPlatformWork(ctx, "old001", now, 1, time.Minute)
	if err != nil || len(claimed) != 1 || claimed[0].Target.Chat != "1" {
		t.Fatalf("claim = %v, %v; want the retrying post to chat 1", claimed, err)
	}
	c := claimed[0]
	c.Attempts, c.NextAt, c.UpdatedAt = 2, now.Add(time.Minute), now
	c.ErrorClass, c.LastError = broker.FailRateLimited, "the platform asked to wait 3s"
	if err := s.UpdatePlatformWork(ctx, c); err != nil {
		t.Fatal(err)
	}
	var class, text string
	if err := s.reader.QueryRow(`SELECT error_class, last_error FROM platform_tasks WHERE question_id = 'old001' AND kind = 'post' AND chat = '1'`).Scan(&class, &text); err != nil {
		t.Fatal(err)
	}
	if class != "rate limited" || text != "the platform asked to wait 3s" {
		t.Errorf("row after an update = %q, %q; want the class in its column and the text alone", class, text)
	}
}
