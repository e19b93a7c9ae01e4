package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/askbridge/askbridge/broker"
)

// inboxSchema (step 17) indexes the questions by state for the inboxes
// (inbox.go): the open ones by creation time, the resolved ones by
// resolution time, each a partial index of questions that holds only its
// state's rows. A Create writes one entry, a resolution moves the row from
// one index to the other, and nothing else is written: the channel of a
// question is checked on the rows a page reads (its in-process copies in
// the copies column, its posted copies in messages), not kept apart. A
// table of (channel, state, time, id) rows kept by triggers cost a cycle
// of the default route about 15 % more CPU (two channels, a row each, a
// key rewritten on every resolution, and the JSON of the copies read on
// every write); see docs/benchmarks.md. The step gives the resolved rows
// written without a resolution time their creation time, the time their
// cursor (broker.ResolvedCursor) orders them by.
const inboxSchema = `UPDATE questions SET resolved_at = created_at WHERE status != 'pending' AND resolved_at IS NULL;
	CREATE INDEX questions_open ON questions (created_at, id) WHERE status = 'pending';
	CREATE INDEX questions_resolved ON questions (resolved_at, id) WHERE status != 'pending';`

// inboxHas is true when the question q has a copy on the channel ?1: an
// in-process one in its copies, or a posted one in messages.
const inboxHas = `((q.copies != '[]' AND EXISTS (SELECT 1 FROM json_each(q.copies) WHERE value ->> 0 = ?1))
		OR EXISTS (SELECT 1 FROM messages m WHERE m.question_created_at = q.created_at AND m.question_id = q.id AND m.channel = ?1))`

// maxInboxScan bounds how many resolved questions a page of the resolved
// part passes over, of every channel: a channel that has a copy of only a
// small share of the questions shows its own among the latest that many
// (broker.Inbox). The open part is not bounded: it walks the pending
// questions, which the pending caps bound, and shows every one of the
// channel's.
const maxInboxScan = 5000

// The reads of a page walk a state's index in its order, newest first,
// after a cursor (the first page reads after a cursor past every row),
// and give each row's data when the question has a copy on the channel,
// NULL when not: the caller stops reading once the page is full, and the
// reads of the resolved part stop after maxInboxScan rows.
const (
	sqlInboxOpen = `SELECT q.id, CASE WHEN ` + inboxHas + ` THEN q.data END
		FROM questions q INDEXED BY questions_open
		WHERE q.status = 'pending' AND (q.created_at, q.id) < (?2, ?3)
		ORDER BY q.created_at DESC, q.id DESC`
	sqlInboxResolved = `SELECT q.id, CASE WHEN ` + inboxHas + ` THEN q.data END
		FROM questions q INDEXED BY questions_resolved
		WHERE q.status != 'pending' AND (q.resolved_at, q.id) < (?2, ?3)
		ORDER BY q.resolved_at DESC, q.id DESC LIMIT ?4`
	sqlInboxCount = `SELECT count(*) FROM (SELECT 1 FROM questions q INDEXED BY questions_open
		WHERE q.status = 'pending' AND (q.created_at, q.id) < (?2, ?3) AND ` + inboxHas + `
		ORDER BY q.created_at DESC, q.id DESC LIMIT ?4)`
	sqlInboxResolvedCount = `SELECT count(*) FROM (SELECT 1 FROM questions q
		WHERE q.rowid IN (SELECT rowid FROM questions INDEXED BY questions_resolved
			WHERE status != 'pending' AND (resolved_at, id) < (?2, ?3)
			ORDER BY resolved_at DESC, id DESC LIMIT ?5) AND ` + inboxHas + `
		LIMIT ?4)`
)

// InboxPage reads a page of a channel's inbox from the indexes of step
// 17; see broker.Inbox. A page of the open part, and the count of what
// follows it, walk the pending questions from the cursor until they have
// what they need; a page of the resolved part, and its count, walk at most
// maxInboxScan resolved questions each.
func (s *Store) InboxPage(ctx context.Context, q broker.InboxQuery) (broker.InboxPage, error) {
	if err := q.Check(); err != nil {
		return broker.InboxPage{}, fmt.Errorf("sqlite: %w", err)
	}
	if s.closed.Load() {
		return broker.InboxPage{}, s.fail("inbox page", errStoreClosed)
	}
	at, id := int64(math.MaxInt64), ""
	if q.After != nil {
		at, id = ms(q.After.At), q.After.ID
	}
	var rows *sql.Rows
	var err error
	if q.Resolved {
		rows, err = s.reader.QueryContext(ctx, sqlInboxResolved, q.Channel, at, id, maxInboxScan)
	} else {
		rows, err = s.reader.QueryContext(ctx, sqlInboxOpen, q.Channel, at, id)
	}
	if err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	defer rows.Close()
	var page broker.InboxPage
	for len(page.Questions) < q.Limit && rows.Next() {
		var id string
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return broker.InboxPage{}, s.fail("inbox page", err)
		}
		if raw == nil {
			continue // no copy on the channel
		}
		// An open question is one the cache of decoded questions is for
		// (its resolution reads it): a page read again copies it instead
		// of decoding it. A resolved one is decoded and not kept.
		var qu *broker.Question
		if q.Resolved {
			qu, err = decode(raw)
		} else {
			qu, err = s.decoded.decode(id, raw)
		}
		if err != nil {
			return broker.InboxPage{}, fmt.Errorf("sqlite: inbox page: %w", err)
		}
		page.Questions = append(page.Questions, qu)
	}
	if err := rows.Err(); err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	if err := rows.Close(); err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	if q.Count == 0 || len(page.Questions) < q.Limit {
		return page, nil
	}
	last := page.Questions[len(page.Questions)-1]
	var row *sql.Row
	if q.Resolved {
		c := broker.ResolvedCursor(last)
		row = s.reader.QueryRowContext(ctx, sqlInboxResolvedCount, q.Channel, ms(c.At), c.ID, q.Count, maxInboxScan)
	} else {
		c := broker.OpenCursor(last)
		row = s.reader.QueryRowContext(ctx, sqlInboxCount, q.Channel, ms(c.At), c.ID, q.Count)
	}
	if err := row.Scan(&page.More); err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	return page, nil
}
