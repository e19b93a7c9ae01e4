package client

import (
	"bytes"
	"encoding/json"
)

// UnmarshalJSON reads a result whose answered_by is one responder, or an
// array of them for a question that needed several people: then Voters
// holds them all and AnsweredBy the first.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	var raw struct {
		plain
		AnsweredBy json.RawMessage `json:"answered_by,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*r = Result(raw.plain)
	r.AnsweredBy, r.Voters = nil, nil
	switch v := bytes.TrimSpace(raw.AnsweredBy); {
	case len(v) == 0 || string(v) == "null":
	case v[0] == '[':
		if err := json.Unmarshal(v, &r.Voters); err != nil {
			return err
		}
		if len(r.Voters) > 0 {
			first := r.Voters[0]
			r.AnsweredBy = &first
		}
	default:
		if err := json.Unmarshal(v, &r.AnsweredBy); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON writes r as the server does: answered_by is the array of
// Voters when there are any.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	if len(r.Voters) == 0 {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		AnsweredBy []Responder `json:"answered_by"`
	}{plain(r), r.Voters})
}
