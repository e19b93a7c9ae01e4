package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

// AddMessage remembers a posted copy of question id and appends its
// audit entry. An unknown question gives broker.ErrNotFound.
func (s *Store) AddMessage(ctx context.Context, id string, m broker.MessageRef) error {
	if m.Channel == "" {
		return fmt.Errorf("sqlite: add message %s: %w: the message has no channel", id, broker.ErrInvalid)
	}
	return s.write(ctx, "add message "+id, func(ctx context.Context, tx *wtx) error {
		// The copy's audit entry is appended in the same step (audit.go);
		// reading the trail's end finds the question too.
		agent, n, prev, err := s.auditTailTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.StmtContext(ctx, s.stmts.addMessage).ExecContext(ctx, id, m.Channel, m.Chat, m.MessageID, ms(m.PostedAt)); err != nil {
			return err
		}
		return s.appendAuditTx(ctx, tx, id, agent, n, prev, []broker.AuditEntry{broker.PostedAudit(id, agent, m)})
	})
}

// Messages lists the posted copies of question id, oldest first.
func (s *Store) Messages(ctx context.Context, id string) ([]broker.MessageRef, error) {
	if s.closed.Load() {
		return nil, s.fail("messages "+id, errStoreClosed)
	}
	rows, err := s.stmts.messages.QueryContext(ctx, id)
	if err != nil {
		return nil, s.fail("messages "+id, err)
	}
	defer rows.Close()
	var out []broker.MessageRef
	for rows.Next() {
		var m broker.MessageRef
		var posted int64
		if err := rows.Scan(&m.Channel, &m.Chat, &m.MessageID, &posted); err != nil {
			return nil, s.fail("messages "+id, err)
		}
		m.PostedAt = fromMS(posted)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("messages "+id, err)
	}
	return out, nil
}

// LookupMessage returns the id of the question a platform message belongs
// to, or broker.ErrNotFound.
func (s *Store) LookupMessage(ctx context.Context, channel, chat, messageID string) (string, error) {
	op := "lookup message " + channel + ":" + chat + ":" + messageID
	if s.closed.Load() {
		return "", s.fail(op, errStoreClosed)
	}
	if messageID == "" {
		return "", fmt.Errorf("sqlite: %s: %w", op, broker.ErrNotFound)
	}
	var id string
	err := s.stmts.lookup.QueryRowContext(ctx, channel, chat, messageID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("sqlite: %s: %w", op, broker.ErrNotFound)
	}
	if err != nil {
		return "", s.fail(op, err)
	}
	return id, nil
}
