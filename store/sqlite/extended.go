package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

// appendExtended appends the extended event of a snooze to the event log,
// in the transaction that moves the question's deadline, so that the
// event is there exactly when the new deadline is.
func appendExtended(ctx context.Context, tx *wtx, ev broker.Event) error {
	x := *ev.Extension
	x.ExpiresAt = utcMS(x.ExpiresAt) // as the question keeps it
	ext, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("encode extension: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO events (question_id, agent, session_id, status, at, type, extension) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		ev.QuestionID, ev.Agent, ev.SessionID, string(ev.Status), ms(utcMS(ev.At)), broker.EventExtended, string(ext)); err != nil {
		return fmt.Errorf("append extended event: %w", err)
	}
	return nil
}

// readExtension fills e.Extension from the extension column of its row
// (NULL for a resolution).
func readExtension(e *broker.Event, ext sql.NullString) error {
	if !ext.Valid {
		return nil
	}
	e.Extension = new(broker.Extension)
	if err := json.Unmarshal([]byte(ext.String), e.Extension); err != nil {
		return fmt.Errorf("event %d: decode extension: %w", e.Seq, err)
	}
	e.Extension.ExpiresAt = e.Extension.ExpiresAt.UTC()
	return nil
}
