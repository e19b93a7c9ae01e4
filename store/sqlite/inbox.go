package sqlite

import (
	"context"
	"fmt"
	"math"

	"github.com/askbridge/askbridge/broker"
)

// inboxSchema (step 17) keeps each channel's inbox as an index by state
// (inbox.go): one row per question and channel it has a copy on, keyed
// by channel, state (open while pending), the time that orders the state
// (creation while open, resolution once resolved) and id, in a table that
// is its own index, so that a page walks only the rows it returns and a
// copy costs one B-tree entry. Triggers keep it, so that no path that
// writes a copy, resolves or deletes a question can forget it: a copy
// written by Create (in-process) or AddMessage adds the row, a resolution
// moves it to the resolved state, a delete (Purge) removes it. A
// question's channels are those of its in-process copies (the copies
// column) and of its rows in messages, read before the delete removes
// them. The step indexes the questions already stored.
const inboxSchema = `CREATE TABLE inbox (
		channel     TEXT NOT NULL,
		open        INTEGER NOT NULL,
		at          INTEGER NOT NULL,
		question_id TEXT NOT NULL,
		PRIMARY KEY (channel, open, at, question_id)
	) WITHOUT ROWID;
	INSERT OR IGNORE INTO inbox (channel, open, at, question_id)
		SELECT c.value ->> 0, q.status = 'pending',
			CASE WHEN q.status = 'pending' THEN q.created_at ELSE COALESCE(q.resolved_at, q.created_at) END, q.id
		FROM questions q, json_each(q.copies) c WHERE q.copies != '[]';
	INSERT OR IGNORE INTO inbox (channel, open, at, question_id)
		SELECT m.channel, q.status = 'pending',
			CASE WHEN q.status = 'pending' THEN q.created_at ELSE COALESCE(q.resolved_at, q.created_at) END, q.id
		FROM messages m JOIN questions q ON q.id = m.question_id;
	CREATE TRIGGER inbox_create AFTER INSERT ON questions WHEN NEW.copies != '[]' BEGIN
		INSERT OR IGNORE INTO inbox (channel, open, at, question_id)
			SELECT value ->> 0, NEW.status = 'pending',
				CASE WHEN NEW.status = 'pending' THEN NEW.created_at ELSE COALESCE(NEW.resolved_at, NEW.created_at) END, NEW.id
			FROM json_each(NEW.copies);
	END;
	CREATE TRIGGER inbox_copy AFTER INSERT ON messages BEGIN
		INSERT OR IGNORE INTO inbox (channel, open, at, question_id)
			SELECT NEW.channel, status = 'pending',
				CASE WHEN status = 'pending' THEN created_at ELSE COALESCE(resolved_at, created_at) END, id
			FROM questions WHERE id = NEW.question_id;
	END;
	CREATE TRIGGER inbox_resolve AFTER UPDATE OF status ON questions WHEN OLD.status = 'pending' AND NEW.status != 'pending' BEGIN
		UPDATE inbox SET open = 0, at = COALESCE(NEW.resolved_at, NEW.created_at)
			WHERE channel IN (SELECT value ->> 0 FROM json_each(OLD.copies)
				UNION ALL SELECT channel FROM messages WHERE question_created_at = OLD.created_at AND question_id = OLD.id)
			AND open = 1 AND at = OLD.created_at AND question_id = OLD.id;
	END;
	CREATE TRIGGER inbox_purge BEFORE DELETE ON questions BEGIN
		DELETE FROM inbox
			WHERE channel IN (SELECT value ->> 0 FROM json_each(OLD.copies)
				UNION ALL SELECT channel FROM messages WHERE question_created_at = OLD.created_at AND question_id = OLD.id)
			AND open = (OLD.status = 'pending')
			AND at = CASE WHEN OLD.status = 'pending' THEN OLD.created_at ELSE COALESCE(OLD.resolved_at, OLD.created_at) END
			AND question_id = OLD.id;
	END;`

// The reads of a page: the entries of a state after a cursor, in the
// order of the table's key, joined to their questions. The first page
// reads after a cursor past every entry.
const (
	sqlInboxPage = `SELECT i.question_id, q.data FROM inbox i JOIN questions q ON q.id = i.question_id
		WHERE i.channel = ? AND i.open = ? AND (i.at, i.question_id) < (?, ?)
		ORDER BY i.at DESC, i.question_id DESC LIMIT ?`
	sqlInboxCount = `SELECT count(*) FROM (SELECT 1 FROM inbox
		WHERE channel = ? AND open = ? AND (at, question_id) < (?, ?)
		ORDER BY at DESC, question_id DESC LIMIT ?)`
)

// InboxPage reads a page of a channel's inbox from the table of step 17;
// see broker.Inbox. The count of what follows the page walks at most
// q.Count rows of it.
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
	open := !q.Resolved
	rows, err := s.reader.QueryContext(ctx, sqlInboxPage, q.Channel, open, at, id, q.Limit)
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
	if err := s.reader.QueryRowContext(ctx, sqlInboxCount, q.Channel, open, ms(last.At), last.ID, q.Count).Scan(&page.More); err != nil {
		return broker.InboxPage{}, s.fail("inbox page", err)
	}
	return page, nil
}
