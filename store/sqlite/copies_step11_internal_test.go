package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// copiesOf lists the copies of question id as channel/chat/message id.
func copiesOf(t *testing.T, s *Store, id string) []string {
	t.Helper()
	ms, err := s.Messages(context.Background(), id)
	if err != nil {
		t.Fatalf("Messages(%s): %v", id, err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Channel+"/"+m.Chat+"/"+m.MessageID)
	}
	return out
}

// listed reports whether List(f) has question id.
func listed(t *testing.T, s *Store, f broker.Filter, id string) bool {
	t.Helper()
	qs, err := s.List(context.Background(), f)
	if err != nil {
		t.Fatalf("List(%+v): %v", f, err)
	}
	return slices.ContainsFunc(qs, func(q *broker.Question) bool { return q.ID == id })
}

// TestInProcessCopiesInTheRow checks schema step 11: Create keeps the
// copies at a question's in-process targets in its row, not as rows of
// messages, and every reader of copies finds them there as it finds the
// copies posted later: in order, by channel, by chat, by both, and by
// lookup, with a chat whose text would break a naive encoding.
func TestInProcessCopiesInTheRow(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "askbridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	odd := `o"ps],["web","` // a chat that is JSON's own punctuation
	web, cli, tg := broker.Target{Channel: "web"}, broker.Target{Channel: "cli", Chat: odd}, broker.Target{Channel: "telegram", Chat: "-100"}
	q := brokertest.NewQuestion("cpy001", "a", now)
	q.Targets = []broker.Target{web, cli, tg}
	if _, _, err := s.Create(ctx, q, []broker.Target{web, cli}); err != nil {
		t.Fatal(err)
	}
	var rows int
	var stored string
	if err := s.reader.QueryRow(`SELECT count(*) FROM messages WHERE question_id = 'cpy001'`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("Create wrote %d rows of messages (%v); want its in-process copies in the question's row", rows, err)
	}
	if err := s.reader.QueryRow(`SELECT copies FROM questions WHERE id = 'cpy001'`).Scan(&stored); err != nil || stored != `[["web",""],["cli","o\"ps],[\"web\",\""]]` {
		t.Fatalf("the row's copies = %s (%v)", stored, err)
	}

	if err := s.AddMessage(ctx, "cpy001", broker.MessageRef{Channel: "telegram", Chat: "-100", MessageID: "m-9", PostedAt: now.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if got, want := copiesOf(t, s, "cpy001"), []string{"web//cpy001", "cli/" + odd + "/cpy001", "telegram/-100/m-9"}; !slices.Equal(got, want) {
		t.Fatalf("copies = %q, want %q (in-process first, then as posted)", got, want)
	}
	refs, err := s.Messages(ctx, "cpy001")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range refs[:2] {
		if !m.PostedAt.Equal(now) {
			t.Fatalf("in-process copy %s/%s posted at %s, want the question's creation %s", m.Channel, m.Chat, m.PostedAt, now)
		}
	}

	for _, c := range []struct {
		f    broker.Filter
		want bool
	}{
		{broker.Filter{Channel: "web"}, true},
		{broker.Filter{Channel: "web", Chat: ""}, true},
		{broker.Filter{Chat: odd}, true},
		{broker.Filter{Channel: "cli", Chat: odd}, true},
		{broker.Filter{Channel: "telegram", Chat: "-100"}, true},
		{broker.Filter{Channel: "cli", Chat: "ops"}, false},
		{broker.Filter{Channel: "web", Chat: odd}, false},
		{broker.Filter{Chat: "web"}, false},   // a channel's name is not a chat
		{broker.Filter{Channel: ""}, true},    // no filter
		{broker.Filter{Channel: "ps"}, false}, // part of a chat is no channel
		{broker.Filter{Channel: "slack"}, false},
	} {
		if got := listed(t, s, c.f, "cpy001"); got != c.want {
			t.Errorf("List(%+v) has the question: %v, want %v", c.f, got, c.want)
		}
	}

	for _, l := range []struct {
		channel, chat, msg string
		found              bool
	}{
		{"web", "", "cpy001", true},
		{"cli", odd, "cpy001", true},
		{"telegram", "-100", "m-9", true},
		{"cli", "", "cpy001", false},
		{"web", odd, "cpy001", false},
		{"telegram", "-100", "cpy001", false}, // the platform copy has its own id
		{"web", "", "m-9", false},
	} {
		id, err := s.LookupMessage(ctx, l.channel, l.chat, l.msg)
		if l.found && (err != nil || id != "cpy001") {
			t.Errorf("LookupMessage(%s, %q, %s) = %q, %v; want cpy001", l.channel, l.chat, l.msg, id, err)
		}
		if !l.found && err == nil {
			t.Errorf("LookupMessage(%s, %q, %s) = %q; no such copy was posted", l.channel, l.chat, l.msg, id)
		}
	}

	// A question with no in-process target has none in its row.
	p := brokertest.NewQuestion("cpy002", "a", now)
	p.Targets = []broker.Target{tg}
	if _, _, err := s.Create(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	if got := copiesOf(t, s, "cpy002"); len(got) != 0 {
		t.Fatalf("copies of a question posted nowhere yet = %q", got)
	}
	if listed(t, s, broker.Filter{Channel: "web"}, "cpy002") {
		t.Fatal("List by channel web has a question with no copy there")
	}

	// The copies go with their question.
	if _, err := s.Resolve(ctx, "cpy001", broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(ctx, now.Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want 1", n, err)
	}
	if got := copiesOf(t, s, "cpy001"); len(got) != 0 {
		t.Fatalf("copies of a purged question = %q", got)
	}
	if id, err := s.LookupMessage(ctx, "web", "", "cpy001"); err == nil {
		t.Fatalf("LookupMessage found purged question %s", id)
	}
}

// TestCopiesStep11 opens a file written at schema step 10, whose
// in-process copies are rows of messages, and checks that they are found
// as before beside the copies of a question asked after the upgrade,
// which its row holds, and that neither is listed twice.
func TestCopiesStep11(t *testing.T) {
	ctx := context.Background()
	path, db := openAtStep(t, 10)
	now := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := db.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, data) VALUES ('old001', 'a', 'pending', ?, ?, '{"id":"old001","agent":"a","status":"pending"}')`,
		ms(now.Add(time.Hour)), ms(now.Add(-time.Second))); err != nil {
		t.Fatal(err)
	}
	for _, m := range [][3]string{{"web", "", "old001"}, {"cli", "", "old001"}, {"telegram", "-100", "m-1"}} {
		if _, err := db.Exec(`INSERT INTO messages (question_id, question_created_at, channel, chat, message_id, posted_at) VALUES ('old001', ?, ?, ?, ?, ?)`,
			ms(now.Add(-time.Second)), m[0], m[1], m[2], ms(now.Add(-time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	s := reopen(t, path, db)
	q := brokertest.NewQuestion("new001", "a", now)
	q.Targets = []broker.Target{{Channel: "web"}, {Channel: "cli"}}
	if _, _, err := s.Create(ctx, q, q.Targets); err != nil {
		t.Fatal(err)
	}
	if got, want := copiesOf(t, s, "old001"), []string{"web//old001", "cli//old001", "telegram/-100/m-1"}; !slices.Equal(got, want) {
		t.Fatalf("copies of a question asked before the upgrade = %q, want %q", got, want)
	}
	if got, want := copiesOf(t, s, "new001"), []string{"web//new001", "cli//new001"}; !slices.Equal(got, want) {
		t.Fatalf("copies of a question asked after it = %q, want %q", got, want)
	}
	qs, err := s.List(ctx, broker.Filter{Channel: "web", Chat: ""})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	if want := []string{"new001", "old001"}; !slices.Equal(ids, want) {
		t.Fatalf("List of the web inbox = %q, want %q, newest first, each once", ids, want)
	}
	for _, id := range []string{"old001", "new001"} {
		if got, err := s.LookupMessage(ctx, "cli", "", id); err != nil || got != id {
			t.Fatalf("LookupMessage(cli, , %s) = %q, %v", id, got, err)
		}
	}
}
