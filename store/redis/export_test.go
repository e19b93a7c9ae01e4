package redis

// IdemKey exposes the idempotency key name to the external tests.
func (s *Store) IdemKey(agent, session, toolCallID string) string {
	return s.k.idem(agent, session, toolCallID)
}
