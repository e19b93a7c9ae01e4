package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Conversations = (*Store)(nil)

// conversationsSchema keeps the conversations of live agent sessions
// (broker/conversation.go). A conversation's row holds its message
// counter and when the session last listened, and lasts as long as the
// latest of its messages and marks; its messages are rows of their own,
// the message as JSON. Both go once expired: every write removes what
// has expired, through the expiry indexes. A conversation whose row went
// starts its numbers again, which the broker allows for.
const conversationsSchema = `CREATE TABLE conversations (
		agent       TEXT NOT NULL,
		session     TEXT NOT NULL,
		seq         INTEGER NOT NULL,
		listened_at INTEGER NOT NULL,
		expires_at  INTEGER NOT NULL,
		PRIMARY KEY (agent, session)
	) WITHOUT ROWID;
	CREATE INDEX conversations_expiry ON conversations (expires_at);
	CREATE TABLE session_messages (
		agent      TEXT NOT NULL,
		session    TEXT NOT NULL,
		seq        INTEGER NOT NULL,
		expires_at INTEGER NOT NULL,
		data       TEXT NOT NULL,
		PRIMARY KEY (agent, session, seq)
	) WITHOUT ROWID;
	CREATE INDEX session_messages_expiry ON session_messages (expires_at);`

// AddSessionMessage takes the conversation's next number and stores m
// under it, dropping the messages beyond broker.MaxSessionMessages, in
// one transaction of the writer.
func (s *Store) AddSessionMessage(ctx context.Context, m broker.SessionMessage) (int64, error) {
	m.Seq = 0
	data, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("sqlite: add session message: %w", err)
	}
	var seq int64
	err = s.write(ctx, "add session message", func(ctx context.Context, tx *wtx) error {
		if err := dropExpiredConversations(ctx, tx, ms(m.At)); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO conversations (agent, session, seq, listened_at, expires_at) VALUES (?, ?, 1, 0, ?)
			ON CONFLICT (agent, session) DO UPDATE SET seq = seq + 1, expires_at = max(expires_at, excluded.expires_at)
			RETURNING seq`, m.Agent, m.SessionID, ms(m.ExpiresAt)).Scan(&seq)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_messages (agent, session, seq, expires_at, data) VALUES (?, ?, ?, ?, ?)`,
			m.Agent, m.SessionID, seq, ms(m.ExpiresAt), string(data)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM session_messages WHERE agent = ? AND session = ? AND seq <= ?`,
			m.Agent, m.SessionID, seq-broker.MaxSessionMessages)
		return err
	})
	if err != nil {
		return 0, err
	}
	return seq, nil
}

// dropExpiredConversations removes the conversations and messages
// expired at now.
func dropExpiredConversations(ctx context.Context, tx *wtx, now int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_messages WHERE expires_at <= ?`, now); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE expires_at <= ?`, now)
	return err
}

// SessionMessages reads the messages after after, then the counter, so
// that the counter is never below a message returned.
func (s *Store) SessionMessages(ctx context.Context, agent, session string, after int64, now time.Time, limit int) ([]broker.SessionMessage, int64, error) {
	if s.closed.Load() {
		return nil, 0, s.fail("session messages", errStoreClosed)
	}
	if limit <= 0 {
		limit = broker.MaxSessionMessages
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT seq, data FROM session_messages
		WHERE agent = ? AND session = ? AND seq > ? AND expires_at > ? ORDER BY seq LIMIT ?`, agent, session, after, ms(now), limit)
	if err != nil {
		return nil, 0, s.fail("session messages", err)
	}
	defer rows.Close()
	var out []broker.SessionMessage
	for rows.Next() {
		var seq int64
		var data string
		if err := rows.Scan(&seq, &data); err != nil {
			return nil, 0, s.fail("session messages", err)
		}
		var m broker.SessionMessage
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return nil, 0, fmt.Errorf("sqlite: session messages: message %d: %w", seq, err)
		}
		m.Seq = seq
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, s.fail("session messages", err)
	}
	var latest int64
	err = s.reader.QueryRowContext(ctx, `SELECT seq FROM conversations WHERE agent = ? AND session = ? AND expires_at > ?`,
		agent, session, ms(now)).Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, 0, s.fail("session messages", err)
	}
	return out, latest, nil
}

// MarkListening records the session's last poll in its conversation's
// row, which it keeps until until at least.
func (s *Store) MarkListening(ctx context.Context, agent, session string, at, until time.Time) error {
	return s.write(ctx, "mark listening", func(ctx context.Context, tx *wtx) error {
		if err := dropExpiredConversations(ctx, tx, ms(at)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO conversations (agent, session, seq, listened_at, expires_at) VALUES (?, ?, 0, ?, ?)
			ON CONFLICT (agent, session) DO UPDATE SET listened_at = max(listened_at, excluded.listened_at), expires_at = max(expires_at, excluded.expires_at)`,
			agent, session, ms(at), ms(until))
		return err
	})
}

// ListenedAt reads the session's last poll.
func (s *Store) ListenedAt(ctx context.Context, agent, session string, now time.Time) (time.Time, error) {
	if s.closed.Load() {
		return time.Time{}, s.fail("listened at", errStoreClosed)
	}
	var at int64
	err := s.reader.QueryRowContext(ctx, `SELECT listened_at FROM conversations WHERE agent = ? AND session = ? AND expires_at > ?`,
		agent, session, ms(now)).Scan(&at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, s.fail("listened at", err)
	case at == 0:
		return time.Time{}, nil
	}
	return time.UnixMilli(at).UTC(), nil
}
