package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/web"
	"github.com/askbridge/askbridge/store/sqlite"
)

// fillBatch is how many rows one transaction of fillSQLite inserts.
const fillBatch = 50000

// fillSQLite creates the file at path with the store's schema and
// inserts the questions of cfg as rows, the way Create and Resolve write
// them (the question as JSON, its in-process copy in the web inbox), in
// transactions of fillBatch; the schema's triggers index them. It leaves
// out what the inbox does not read (audit trails, events, edit tasks).
func fillSQLite(ctx context.Context, path string, cfg InboxConfig, now time.Time, progress func(string)) error {
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF`); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	copies := `[["` + web.Name + `",""]]`
	for start := 0; start < cfg.Stored; start += fillBatch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO questions (id, agent, session_id, tool_call_id, status, expires_at, created_at, resolved_at, data, copies)
			VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("bench: %w", err)
		}
		for i := start; i < min(start+fillBatch, cfg.Stored); i++ {
			q := inboxQuestion(i, cfg.Stored, cfg.Open, now)
			data, err := json.Marshal(q)
			if err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("bench: %w", err)
			}
			var resolved any
			if !q.ResolvedAt.IsZero() {
				resolved = q.ResolvedAt.UnixMilli()
			}
			if _, err := ins.ExecContext(ctx, q.ID, q.Agent, q.SessionID, string(q.Status), q.ExpiresAt.UnixMilli(),
				q.CreatedAt.UnixMilli(), resolved, data, copies); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("bench: insert question %d: %w", i, err)
			}
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		progress(fmt.Sprintf("%d stored", min(start+fillBatch, cfg.Stored)))
	}
	return nil
}

// fillThrough stores the questions of cfg through st: Create with the
// web inbox's in-process copy, then Resolve for the resolved ones.
func fillThrough(ctx context.Context, st broker.Store, cfg InboxConfig, now time.Time, progress func(string)) error {
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	inProcess := []broker.Target{{Channel: web.Name}}
	for range max(cfg.Workers, 1) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= cfg.Stored {
					return
				}
				q := inboxQuestion(i, cfg.Stored, cfg.Open, now)
				res := broker.Resolution{Status: q.Status, Answers: q.Answers, AnsweredBy: q.AnsweredBy, ResolvedAt: q.ResolvedAt}
				q.Status, q.Answers, q.AnsweredBy, q.ResolvedAt = broker.StatusPending, nil, nil, time.Time{}
				_, _, err := st.Create(ctx, q, inProcess)
				if err == nil && res.Status.Terminal() {
					_, err = st.Resolve(ctx, q.ID, res)
				}
				if err != nil {
					mu.Lock()
					first = cmpErr(first, fmt.Errorf("fill %d: %w", i, err))
					mu.Unlock()
					return
				}
				if d := done.Add(1); d%50000 == 0 {
					progress(fmt.Sprintf("%d stored", d))
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
