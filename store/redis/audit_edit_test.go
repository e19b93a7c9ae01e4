package redis

import (
	"context"
	"fmt"
)

// EditAuditEntry rewrites entry seq of question id's audit trail by hand
// with LSET, as someone with access to Redis could
// (brokertest.AuditEditor).
func (s *Store) EditAuditEntry(ctx context.Context, id string, seq int64, edit func(raw string) string) error {
	raw, err := s.c.LIndex(ctx, s.k.audit(id), seq-1).Result()
	if err != nil {
		return fmt.Errorf("read entry %d of %s: %w", seq, id, err)
	}
	return s.c.LSet(ctx, s.k.audit(id), seq-1, edit(raw)).Err()
}

// RemoveAuditEntry removes entry seq of question id's audit trail by hand
// (LSET to a mark, then LREM of the mark).
func (s *Store) RemoveAuditEntry(ctx context.Context, id string, seq int64) error {
	const mark = "\x00removed"
	if err := s.c.LSet(ctx, s.k.audit(id), seq-1, mark).Err(); err != nil {
		return err
	}
	return s.c.LRem(ctx, s.k.audit(id), 1, mark).Err()
}
