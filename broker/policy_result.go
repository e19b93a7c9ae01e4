package broker

import "encoding/json"

// MarshalJSON writes r; answered_by is the array of Voters when the
// question needed several people, and the one responder otherwise.
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

// UnmarshalJSON reads what MarshalJSON writes.
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
	if len(raw.AnsweredBy) == 0 || string(raw.AnsweredBy) == "null" {
		return nil
	}
	if raw.AnsweredBy[0] == '[' {
		if err := json.Unmarshal(raw.AnsweredBy, &r.Voters); err != nil {
			return err
		}
		if len(r.Voters) > 0 {
			first := r.Voters[0]
			r.AnsweredBy = &first
		}
		return nil
	}
	return json.Unmarshal(raw.AnsweredBy, &r.AnsweredBy)
}
