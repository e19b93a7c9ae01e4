package redis

import (
	"context"
)

// IdemKey exposes the idempotency key name to the external tests.
func (s *Store) IdemKey(agent, session, toolCallID string) string {
	return s.k.idem(agent, session, toolCallID)
}

// ActAsCluster makes the store take the steps it takes on Cluster (where
// Resolve logs its event in a second call) on a single server.
func (s *Store) ActAsCluster() { s.cluster = true }

// LoadScripts loads every script of the store (on every master of a
// cluster), so that counted runs send no script twice.
func (s *Store) LoadScripts(ctx context.Context) error {
	for _, sc := range []*script{
		createScript, createIdemScript, admitScript, reserveScript, releaseScript, resolveScript,
		progressScript, claimReminderScript, renewLeaseScript, addMessageScript, listScript,
		claimDeliveryScript, updateDeliveryScript, logEventScript, purgeEventsScript, purgeScript,
	} {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			return err
		}
	}
	return nil
}
