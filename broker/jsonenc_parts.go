package broker

import (
	"slices"
	"strconv"
)

// The parts of the hand-written JSON of jsonenc.go: a result, and the
// prompts, answers, responders and targets that questions and results
// share.

// appendResult writes r as json.Marshal writes its fields, with
// answered_by as MarshalJSON decides (policy_result.go).
func appendResult(b []byte, r *Result) ([]byte, bool) {
	ok := fieldsMarshal(r.Questions)
	if !ok {
		return nil, false
	}
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
	if r.Conversation {
		b = append(b, `,"conversation":true`...)
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
				if o.Edit != "" {
					b = appendString(append(b, `,"edit":`...), o.Edit)
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
		if p.Field != nil {
			b = appendField(append(b, `,"field":`...), p.Field)
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
	if !a.Value.IsZero() {
		b = append(append(b, `,"value":`...), a.Value.json...)
	}
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
