package broker

import (
	"encoding/json"
	"reflect"
	"slices"
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
	ok := true
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

// appendResult writes r as json.Marshal writes its fields, with
// answered_by as MarshalJSON decides (policy_result.go).
func appendResult(b []byte, r *Result) ([]byte, bool) {
	ok := true
	b = appendString(append(b, `{"id":`...), r.ID)
	if r.Status != "" {
		b = appendString(append(b, `,"status":`...), string(r.Status))
	}
	b = appendString(append(b, `,"session_id":`...), r.SessionID)
	b = appendString(append(b, `,"tool_call_id":`...), r.ToolCallID)
	if len(r.Questions) > 0 {
		b = appendPrompts(append(b, `,"questions":`...), r.Questions)
	}
	b = appendAnswers(append(b, `,"answers":`...), r.Answers)
	if r.Fallback != "" {
		b = appendString(append(b, `,"fallback":`...), r.Fallback)
	}
	if r.Reason != "" {
		b = appendString(append(b, `,"reason":`...), r.Reason)
	}
	if r.NotReady {
		b = append(b, `,"not_ready":true`...)
	}
	if r.AnsweredBy != nil && len(r.Voters) == 0 {
		b = appendResponder(append(b, `,"answered_by":`...), *r.AnsweredBy)
	}
	if r.Route != "" {
		b = appendString(append(b, `,"route":`...), r.Route)
	}
	if b, ok = AppendTime(append(b, `,"created_at":`...), r.CreatedAt); !ok {
		return nil, false
	}
	if b, ok = AppendTime(append(b, `,"expires_at":`...), r.ExpiresAt); !ok {
		return nil, false
	}
	if r.ResolvedAt != nil {
		if b, ok = AppendTime(append(b, `,"resolved_at":`...), *r.ResolvedAt); !ok {
			return nil, false
		}
	}
	if r.Snoozes != 0 {
		b = strconv.AppendInt(append(b, `,"snoozes":`...), int64(r.Snoozes), 10)
	}
	if len(r.Voters) > 0 {
		// The voters' array comes last, where encoding/json puts the
		// field of the struct that embeds the result.
		b = append(b, `,"answered_by":[`...)
		for i, v := range r.Voters {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendResponder(b, v)
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendPrompts(b []byte, ps []Prompt) []byte {
	if ps == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		p := &ps[i]
		b = appendString(append(b, `{"question":`...), p.Question)
		if p.Header != "" {
			b = appendString(append(b, `,"header":`...), p.Header)
		}
		if len(p.Options) > 0 {
			b = append(b, `,"options":[`...)
			for j, o := range p.Options {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(append(b, `{"label":`...), o.Label)
				if o.Description != "" {
					b = appendString(append(b, `,"description":`...), o.Description)
				}
				if o.Action != "" {
					b = appendString(append(b, `,"action":`...), o.Action)
				}
				if o.Prefill != "" {
					b = appendString(append(b, `,"prefill":`...), o.Prefill)
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		if p.MultiSelect {
			b = append(b, `,"multi_select":true`...)
		}
		if p.Other != nil {
			b = strconv.AppendBool(append(b, `,"other":`...), *p.Other)
		}
		if len(p.Default) > 0 {
			b = appendStrings(append(b, `,"default":`...), p.Default)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendAnswers writes answers as an object with its keys sorted, as
// encoding/json does.
func appendAnswers(b []byte, answers map[string]Answer) []byte {
	if answers == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		a := answers[k]
		b = appendAnswer(b, &a)
	}
	return append(b, '}')
}

func appendAnswer(b []byte, a *Answer) []byte {
	b = appendStrings(append(b, `{"selected":`...), a.Selected)
	b = appendString(append(b, `,"custom_text":`...), a.CustomText)
	b = strconv.AppendBool(append(b, `,"skipped":`...), a.Skipped)
	if a.Defaulted {
		b = append(b, `,"defaulted":true`...)
	}
	if a.Action != "" {
		b = appendString(append(b, `,"action":`...), a.Action)
	}
	if a.Prefill != "" {
		b = appendString(append(b, `,"prefill":`...), a.Prefill)
	}
	if a.AnsweredBy != nil {
		b = appendResponder(append(b, `,"answered_by":`...), *a.AnsweredBy)
	}
	if len(a.Attachments) > 0 {
		b = append(b, `,"attachments":[`...)
		for i, f := range a.Attachments {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, `{"n":`...), int64(f.N), 10)
			b = appendString(append(b, `,"name":`...), f.Name)
			b = appendString(append(b, `,"type":`...), f.Type)
			b = strconv.AppendInt(append(b, `,"size":`...), f.Size, 10)
			b = appendString(append(b, `,"url":`...), f.URL)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendResponder(b []byte, r Responder) []byte {
	b = appendString(append(b, `{"channel":`...), r.Channel)
	b = appendString(append(b, `,"user":`...), r.User)
	if r.Name != "" {
		b = appendString(append(b, `,"name":`...), r.Name)
	}
	if p := r.Person; p != nil {
		b = appendString(append(b, `,"person":{"id":`...), p.ID)
		if p.Name != "" {
			b = appendString(append(b, `,"name":`...), p.Name)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendTarget(b []byte, t Target) []byte {
	b = appendString(append(b, `{"channel":`...), t.Channel)
	if t.Chat != "" {
		b = appendString(append(b, `,"chat":`...), t.Chat)
	}
	return append(b, '}')
}

// appendStrings writes ss as an array, or null when it is nil.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// AppendAnswers appends answers as json.Marshal writes them: an object
// with its keys sorted, or null for nil.
func AppendAnswers(b []byte, answers map[string]Answer) []byte { return appendAnswers(b, answers) }

// AppendResponder appends r as json.Marshal writes it.
func AppendResponder(b []byte, r Responder) []byte { return appendResponder(b, r) }
