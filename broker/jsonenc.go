package broker

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// The JSON of a question and of a result is written by hand here rather
// than by encoding/json's reflection: the stores encode a question at
// every Create and Resolve, and the API a result for every answer and
// every read, which made encoding/json 8 % of the bridge's CPU under
// load. The bytes are exactly those json.Marshal writes for the same
// value (TestQuestionJSONMatchesEncodingJSON fills every field, nested
// ones too, with text that needs escaping, and compares), so readers and
// stored data are unchanged. The parts that are rarely set (team
// policies and their state, selections in progress) are still written by
// encoding/json, and a value json.Marshal would refuse (a time outside
// the years 0–9999) goes to encoding/json whole, for its error.

// EncodeQuestion returns q's JSON, the bytes json.Marshal(q) returns,
// written without reflection. It is a function rather than q's
// MarshalJSON: encoding/json checks and copies again whatever a
// MarshalJSON method returns, which would cost more than reflection
// saves, and a question inside another value is encoded by reflection
// as before.
func EncodeQuestion(q *Question) ([]byte, error) {
	b, err := AppendQuestion(make([]byte, 0, 1536), q)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// AppendQuestion appends q's JSON, the bytes EncodeQuestion returns, to
// b: a caller that keeps a buffer encodes a question without allocating.
// On an error b is returned as it was.
func AppendQuestion(b []byte, q *Question) ([]byte, error) {
	if out, ok := appendQuestion(b, q); ok {
		return out, nil
	}
	// A copy goes to encoding/json, so that q itself does not escape:
	// callers may keep it on their stack.
	c := *q
	data, err := json.Marshal(&c)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// AppendResult appends r's JSON, the bytes r.MarshalJSON returns, to b:
// a caller that keeps a buffer writes a result without allocating.
func AppendResult(b []byte, r *Result) ([]byte, error) {
	if out, ok := appendResult(b, r); ok {
		return out, nil
	}
	data, err := r.MarshalJSON()
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// AppendCopies appends the JSON of cs, the bytes json.Marshal(cs)
// returns, to b.
func AppendCopies(b []byte, cs []Copy) ([]byte, error) {
	if out, ok := appendCopies(b, cs); ok {
		return out, nil
	}
	data, err := json.Marshal(cs)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

func appendCopies(b []byte, cs []Copy) ([]byte, bool) {
	if cs == nil {
		return append(b, "null"...), true
	}
	ok := true
	b = append(b, '[')
	for i := range cs {
		c := &cs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTarget(append(b, `{"target":`...), c.Target)
		b = appendString(append(b, `,"state":`...), c.State)
		if c.MessageID != "" {
			b = appendString(append(b, `,"message_id":`...), c.MessageID)
		}
		if c.ErrorClass != "" {
			b = appendString(append(b, `,"error_class":`...), c.ErrorClass)
		}
		if c.LastError != "" {
			b = appendString(append(b, `,"last_error":`...), c.LastError)
		}
		b = strconv.AppendInt(append(b, `,"attempts":`...), int64(c.Attempts), 10)
		if b, ok = AppendTime(append(b, `,"updated_at":`...), c.UpdatedAt); !ok {
			return nil, false
		}
		if c.Edit != "" {
			b = appendString(append(b, `,"edit":`...), c.Edit)
		}
		if c.EditLastError != "" {
			b = appendString(append(b, `,"edit_last_error":`...), c.EditLastError)
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

func appendQuestion(b []byte, q *Question) ([]byte, bool) {
	ok := fieldsMarshal(q.Prompts)
	if !ok {
		return nil, false
	}
	b = append(b, `{"id":`...)
	b = appendString(b, q.ID)
	if q.Agent != "" {
		b = appendString(append(b, `,"agent":`...), q.Agent)
	}
	if q.SessionID != "" {
		b = appendString(append(b, `,"session_id":`...), q.SessionID)
	}
	if q.ToolCallID != "" {
		b = appendString(append(b, `,"tool_call_id":`...), q.ToolCallID)
	}
	b = appendPrompts(append(b, `,"questions":`...), q.Prompts)
	b = appendString(append(b, `,"route":`...), q.Route)
	if len(q.Targets) > 0 {
		b = append(b, `,"targets":[`...)
		for i, t := range q.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTarget(b, t)
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"timeout":`...), int64(q.Timeout), 10)
	if q.Context != "" {
		b = appendString(append(b, `,"context":`...), q.Context)
	}
	if len(q.Responders) > 0 {
		b = appendStrings(append(b, `,"responders":`...), q.Responders)
	}
	if q.CallbackURL != "" {
		b = appendString(append(b, `,"callback_url":`...), q.CallbackURL)
	}
	if q.Fingerprint != "" {
		b = appendString(append(b, `,"fingerprint":`...), q.Fingerprint)
	}
	if q.Conversation {
		b = append(b, `,"conversation":true`...)
	}
	if !reflect.ValueOf(q.Policy).IsZero() {
		b, ok = appendMarshaled(append(b, `,"policy":`...), q.Policy)
		if !ok {
			return nil, false
		}
	}
	if len(q.RequestedBy) > 0 {
		b = appendStrings(append(b, `,"requested_by":`...), q.RequestedBy)
	}
	if !reflect.ValueOf(q.State).IsZero() {
		b, ok = appendMarshaled(append(b, `,"policy_state":`...), q.State)
		if !ok {
			return nil, false
		}
	}
	if q.Lease != 0 {
		b = strconv.AppendInt(append(b, `,"lease":`...), int64(q.Lease), 10)
	}
	if !q.LeaseUntil.IsZero() {
		if b, ok = AppendTime(append(b, `,"lease_until":`...), q.LeaseUntil); !ok {
			return nil, false
		}
	}
	if len(q.Reminders) > 0 {
		b = append(b, `,"reminders":[`...)
		for i, t := range q.Reminders {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = AppendTime(b, t); !ok {
				return nil, false
			}
		}
		b = append(b, ']')
	}
	if q.RemindersSent != 0 {
		b = strconv.AppendInt(append(b, `,"reminders_sent":`...), int64(q.RemindersSent), 10)
	}
	if len(q.Progress) > 0 {
		b = append(b, `,"progress":[`...)
		for i, a := range q.Progress {
			if i > 0 {
				b = append(b, ',')
			}
			if a == nil {
				b = append(b, "null"...)
			} else {
				b = appendAnswer(b, a)
			}
		}
		b = append(b, ']')
	}
	if len(q.Selections) > 0 {
		if b, ok = appendMarshaled(append(b, `,"selections":`...), q.Selections); !ok {
			return nil, false
		}
	}
	if q.Status != "" {
		b = appendString(append(b, `,"status":`...), string(q.Status))
	}
	if len(q.Answers) > 0 {
		b = appendAnswers(append(b, `,"answers":`...), q.Answers)
	}
	if q.Fallback != "" {
		b = appendString(append(b, `,"fallback":`...), q.Fallback)
	}
	if q.Reason != "" {
		b = appendString(append(b, `,"reason":`...), q.Reason)
	}
	if q.NotReady {
		b = append(b, `,"not_ready":true`...)
	}
	if q.AnsweredBy != nil {
		b = appendResponder(append(b, `,"answered_by":`...), *q.AnsweredBy)
	}
	if !q.CreatedAt.IsZero() {
		if b, ok = AppendTime(append(b, `,"created_at":`...), q.CreatedAt); !ok {
			return nil, false
		}
	}
	if b, ok = AppendTime(append(b, `,"expires_at":`...), q.ExpiresAt); !ok {
		return nil, false
	}
	if !q.ResolvedAt.IsZero() {
		if b, ok = AppendTime(append(b, `,"resolved_at":`...), q.ResolvedAt); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}
