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

var _ broker.RuleStore = (*Store)(nil)

// rulesSchema is the table of approval rules: the rule as JSON, with its
// agent and revocation time apart for the filter. AUTOINCREMENT keeps an
// id from being given again after its rule is gone.
const rulesSchema = `CREATE TABLE rules (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		agent      TEXT NOT NULL DEFAULT '',
		revoked_at INTEGER,
		data       TEXT NOT NULL
	);`

// AddRule stores r under the next id of the table.
func (s *Store) AddRule(ctx context.Context, r broker.Rule) (*broker.Rule, error) {
	r.ID = 0
	data, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("sqlite: add rule: %w", err)
	}
	var id int64
	err = s.write(ctx, "add rule", func(ctx context.Context, tx *wtx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO rules (agent, revoked_at, data) VALUES (?, ?, ?) RETURNING id`,
			r.Agent, revokedMS(r.Revoked), string(data)).Scan(&id)
	})
	if err != nil {
		return nil, err
	}
	r.ID = id
	return &r, nil
}

// Rules returns the rules f selects, by id.
func (s *Store) Rules(ctx context.Context, f broker.RuleFilter) ([]broker.Rule, error) {
	if s.closed.Load() {
		return nil, s.fail("rules", errStoreClosed)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT id, data FROM rules
		WHERE (?1 = '' OR agent = '' OR agent = ?1) AND (?2 OR revoked_at IS NULL) ORDER BY id`, f.Agent, f.Revoked)
	if err != nil {
		return nil, s.fail("rules", err)
	}
	defer rows.Close()
	var out []broker.Rule
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, s.fail("rules", err)
		}
		out = append(out, *r)
	}
	return out, s.fail("rules", rows.Err())
}

// RevokeRule marks rule id revoked, once: the read and the write are one
// transaction of the writer.
func (s *Store) RevokeRule(ctx context.Context, id int64, by broker.Responder, at time.Time) (*broker.Rule, error) {
	var out *broker.Rule
	err := s.write(ctx, "revoke rule", func(ctx context.Context, tx *wtx) error {
		r, err := scanRule(tx.QueryRowContext(ctx, `SELECT id, data FROM rules WHERE id = ?`, id))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("%w: there is no rule %d", broker.ErrNotFound, id)
		case err != nil:
			return err
		}
		out = r
		if r.Revoked != nil {
			return nil
		}
		at := at.UTC().Truncate(time.Millisecond)
		r.Revoked, r.RevokedBy = &at, &by
		saved := *r
		saved.ID = 0
		data, err := json.Marshal(saved)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE rules SET revoked_at = ?, data = ? WHERE id = ?`, ms(at), string(data), id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanRule reads a rule from a row of (id, data).
func scanRule(row interface{ Scan(...any) error }) (*broker.Rule, error) {
	var id int64
	var data string
	if err := row.Scan(&id, &data); err != nil {
		return nil, err
	}
	var r broker.Rule
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, fmt.Errorf("rule %d: %w", id, err)
	}
	r.ID = id
	return &r, nil
}

func revokedMS(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: ms(*t), Valid: true}
}
