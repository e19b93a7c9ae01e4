package broker

import "context"

// Audit returns what happened to the agent's question: every vote,
// refusal, escalation and snooze from the store's audit log, then its
// resolution (who, when, through which channel) once it has one. Another
// agent's question reads as unknown (ErrNotFound).
func (b *Broker) Audit(ctx context.Context, agent, id string) ([]AuditEntry, error) {
	q, err := b.Get(ctx, agent, id)
	if err != nil {
		return nil, err
	}
	log, err := b.store.Audit(ctx, id)
	if err != nil {
		return nil, err
	}
	if q.Status.Terminal() {
		e := AuditEntry{At: q.ResolvedAt, Kind: AuditResolved, By: q.AnsweredBy, Status: q.Status, Detail: q.Reason}
		if q.Status == StatusAnswered {
			e.Choice = AnswerText(q)
		}
		log = append(log, e)
	}
	return log, nil
}
