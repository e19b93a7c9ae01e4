package broker

import (
	"bytes"
	"slices"
)

// Clone returns a deep copy of q, so that callers may change it freely.
// It copies field by field: every slice, map and pointer of the copy is
// its own (TestCloneIsDeep fills every field, including fields added
// later, and checks that nothing is shared).
func (q *Question) Clone() *Question {
	if q == nil {
		return nil
	}
	c := *q
	c.Prompts = clonePrompts(q.Prompts)
	c.Targets = slices.Clone(q.Targets)
	c.Responders = slices.Clone(q.Responders)
	c.Reminders = slices.Clone(q.Reminders)
	if q.Progress != nil {
		c.Progress = make([]*Answer, len(q.Progress))
		for i, a := range q.Progress {
			if a != nil {
				cp := a.clone()
				c.Progress[i] = &cp
			}
		}
	}
	if q.Selections != nil {
		c.Selections = make(map[int][]int, len(q.Selections))
		for k, v := range q.Selections {
			c.Selections[k] = slices.Clone(v)
		}
	}
	c.Answers = CloneAnswers(q.Answers)
	c.AnsweredBy = cloneResponder(q.AnsweredBy)
	c.RequestedBy = slices.Clone(q.RequestedBy)
	if q.Policy.Snooze != nil {
		sp := *q.Policy.Snooze
		c.Policy.Snooze = &sp
	}
	c.Policy.Escalate = slices.Clone(q.Policy.Escalate)
	c.State.Snoozes = slices.Clone(q.State.Snoozes)
	for i := range c.State.Snoozes {
		c.State.Snoozes[i].By = c.State.Snoozes[i].By.clone()
	}
	c.State.Notes = slices.Clone(q.State.Notes)
	for i := range c.State.Notes {
		c.State.Notes[i].By = c.State.Notes[i].By.clone()
	}
	if q.State.Escalations != nil {
		c.State.Escalations = make([]Escalation, len(q.State.Escalations))
		for i, e := range q.State.Escalations {
			e.Targets = slices.Clone(e.Targets)
			e.Responders = slices.Clone(e.Responders)
			c.State.Escalations[i] = e
		}
	}
	if q.State.Votes != nil {
		c.State.Votes = make([]Vote, len(q.State.Votes))
		for i, v := range q.State.Votes {
			if v.Answer != nil {
				a := v.Answer.clone()
				v.Answer = &a
			}
			v.By = v.By.clone()
			c.State.Votes[i] = v
		}
	}
	return &c
}

func clonePrompts(ps []Prompt) []Prompt {
	if ps == nil {
		return nil
	}
	out := make([]Prompt, len(ps))
	for i, p := range ps {
		p.Options = slices.Clone(p.Options)
		p.Default = slices.Clone(p.Default)
		if p.Other != nil {
			other := *p.Other
			p.Other = &other
		}
		p.Field = p.Field.clone()
		out[i] = p
	}
	return out
}

// MendedJSON reports whether data, written by json.Marshal, may hold text
// it mended: it writes what is not UTF-8 as \ufffd (and so may a person
// have typed it). Decoding such data does not give back what was
// encoded, so a store that would copy what it encoded instead of decoding
// what it wrote decodes it.
func MendedJSON(data []byte) bool { return bytes.Contains(data, []byte(`\ufffd`)) }

// CloneAnswers returns a deep copy of answers: nil stays nil.
func CloneAnswers(answers map[string]Answer) map[string]Answer {
	if answers == nil {
		return nil
	}
	out := make(map[string]Answer, len(answers))
	for k, a := range answers {
		out[k] = a.clone()
	}
	return out
}

func (a Answer) clone() Answer {
	a.Selected = slices.Clone(a.Selected)
	a.Attachments = slices.Clone(a.Attachments)
	a.AnsweredBy = cloneResponder(a.AnsweredBy)
	return a
}

func cloneResponder(r *Responder) *Responder {
	if r == nil {
		return nil
	}
	cp := r.clone()
	return &cp
}

// clone returns r with its own copy of the person reference.
func (r Responder) clone() Responder {
	if r.Person != nil {
		p := *r.Person
		r.Person = &p
	}
	return r
}
