package sqlite

import (
	"context"
	"fmt"
	"math"

	"github.com/askbridge/askbridge/broker"
)

// inboxSchema (step 17) keeps each channel's inbox in an index by state
// (inbox.go): one row per question and channel it has a copy on, found by
// the question's creation time, then id, like the copies of step 10, so
// that the rows grow at the end of the table. Open questions are indexed
// by channel and creation time, resolved ones by channel and resolution
// time; a page of either walks only the entries it returns. Triggers keep
// it, so that no path that writes a copy, resolves or deletes a question
// can forget it: a copy written by Create (in-process) or AddMessage
// adds the row, a resolution moves it to the resolved index, a delete
// (Purge) removes it. The step indexes the questions already stored.
const inboxSchema = `CREATE TABLE inbox (
		created_at  INTEGER NOT NULL,
		question_id TEXT NOT NULL,
		channel     TEXT NOT NULL,
		resolved_at INTEGER,
		PRIMARY KEY (created_at, question_id, channel)
	) WITHOUT ROWID;
	INSERT OR IGNORE INTO inbox (created_at, question_id, channel, resolved_at)
		SELECT q.created_at, q.id, c.value ->> 0,
			CASE WHEN q.status = 'pending' THEN NULL ELSE COALESCE(q.resolved_at, q.created_at) END
		FROM questions q, json_each(q.copies) c WHERE q.copies != '[]';
	INSERT OR IGNORE INTO inbox (created_at, question_id, channel, resolved_at)
		SELECT q.created_at, q.id, m.channel,
			CASE WHEN q.status = 'pending' THEN NULL ELSE COALESCE(q.resolved_at, q.created_at) END
		FROM messages m JOIN questions q ON q.id = m.question_id;
	CREATE INDEX inbox_open ON inbox (channel, created_at, question_id) WHERE resolved_at IS NULL;
	CREATE INDEX inbox_resolved ON inbox (channel, resolved_at, question_id) WHERE resolved_at IS NOT NULL;
	CREATE TRIGGER inbox_create AFTER INSERT ON questions WHEN NEW.copies != '[]' BEGIN
		INSERT OR IGNORE INTO inbox (created_at, question_id, channel, resolved_at)
			SELECT NEW.created_at, NEW.id, value ->> 0,
				CASE WHEN NEW.status = 'pending' THEN NULL ELSE COALESCE(NEW.resolved_at, NEW.created_at) END
			FROM json_each(NEW.copies);
	END;
	CREATE TRIGGER inbox_copy AFTER INSERT ON messages BEGIN
		INSERT OR IGNORE INTO inbox (created_at, question_id, channel, resolved_at)
			SELECT created_at, id, NEW.channel,
				CASE WHEN status = 'pending' THEN NULL ELSE COALESCE(resolved_at, created_at) END
			FROM questions WHERE id = NEW.question_id;
	END;
	CREATE TRIGGER inbox_resolve AFTER UPDATE OF status ON questions WHEN OLD.status = 'pending' AND NEW.status != 'pending' BEGIN
		UPDATE inbox SET resolved_at = COALESCE(NEW.resolved_at, NEW.created_at)
			WHERE created_at = OLD.created_at AND question_id = OLD.id;
	END;
	CREATE TRIGGER inbox_purge AFTER DELETE ON questions BEGIN
		DELETE FROM inbox WHERE created_at = OLD.created_at AND question_id = OLD.id;
	END;`

// The reads of a page: the entries after a cursor, in the order of the
// part's index, joined to their questions. The first page reads after a
// cursor past every entry.
const (
	sqlInboxOpen = `SELECT i.question_id, q.data FROM inbox i JOIN questions q ON q.id = i.question_id
		WHERE i.channel = ? AND i.resolved_at IS NULL AND (i.created_at, i.question_id) < (?, ?)
		ORDER BY i.created_at DESC, i.question_id DESC LIMIT ?`
	sqlInboxResolved = `SELECT i.question_id, q.data FROM inbox i JOIN questions q ON q.id = i.question_id
		WHERE i.channel = ? AND i.resolved_at IS NOT NULL AND (i.resolved_at, i.question_id) < (?, ?)
		ORDER BY i.resolved_at DESC, i.question_id DESC LIMIT ?`
	sqlInboxOpenCount = `SELECT count(*) FROM (SELECT 1 FROM inbox
		WHERE channel = ? AND resolved_at IS NULL AND (created_at, question_id) < (?, ?)
		ORDER BY created_at DESC, question_id DESC LIMIT ?)`
	sqlInboxResolvedCount = `SELECT count(*) FROM (SELECT 1 FROM inbox
		WHERE channel = ? AND resolved_at IS NOT NULL AND (resolved_at, question_id) < (?, ?)
		ORDER BY resolved_at DESC, question_id DESC LIMIT ?)`
)

// InboxPage reads a page of a channel's inbox from the index of step 17;
// see broker.Inbox. The count of what follows the page walks at most
// q.Count index entries.
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
	read, count := sqlInboxOpen, sqlInboxOpenCount
	if q.Resolved {
		read, count = sqlInboxResolved, sqlInboxResolvedCount
	}
	rows, err := s.reader.QueryContext(ctx, read, q.Channel, at, id, q.Limit)
	if err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	defer rows.Close()
	var page broker.InboxPage
	for rows.Next() {
		var id string
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return broker.InboxPage{}, s.fail("inbox page", err)
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
	if q.Count == 0 || len(page.Questions) < q.Limit {
		return page, nil
	}
	last := broker.OpenCursor(page.Questions[len(page.Questions)-1])
	if q.Resolved {
		last = broker.ResolvedCursor(page.Questions[len(page.Questions)-1])
	}
	if err := s.reader.QueryRowContext(ctx, count, q.Channel, ms(last.At), last.ID, q.Count).Scan(&page.More); err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	return page, nil
}
