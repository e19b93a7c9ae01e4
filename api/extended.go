package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// extendedView is the data of an extended event on GET /v1/events: the
// question still pending, its new deadline, who snoozed it and how many
// snoozes it has had. It says what the event says, not how the question
// stands now (it may have been snoozed again or resolved since), and
// shares its first fields with a result, so that a client reads both
// kinds of events alike.
type extendedView struct {
	ID         string           `json:"id"`
	Status     broker.Status    `json:"status"`
	SessionID  string           `json:"session_id"`
	ExpiresAt  time.Time        `json:"expires_at"`
	SnoozedBy  broker.Responder `json:"snoozed_by"`
	Snoozes    int              `json:"snoozes"`
	ExtendedAt time.Time        `json:"extended_at"`
}

// eventData returns the type and the JSON data of one event of the log.
func (s *Server) eventData(ctx context.Context, ev broker.Event) (string, []byte, error) {
	if ev.Type == broker.EventExtended && ev.Extension != nil {
		x := ev.Extension
		data, err := json.Marshal(extendedView{
			ID: ev.QuestionID, Status: broker.StatusPending, SessionID: ev.SessionID,
			ExpiresAt: x.ExpiresAt, SnoozedBy: x.SnoozedBy, Snoozes: x.Snoozes, ExtendedAt: ev.At,
		})
		return broker.EventExtended, data, err
	}
	data, err := json.Marshal(s.eventResult(ctx, ev))
	return broker.EventResolved, data, err
}
