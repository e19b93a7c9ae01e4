package broker

import "time"

// TimedOut returns the resolution of a question whose deadline passed at
// now: with a default on every prompt, those defaults marked as such and
// fallback "default"; otherwise no answers and fallback "none". A timeout
// never looks like a person's answer: AnsweredBy stays empty.
func TimedOut(q *Question, now time.Time) Resolution {
	r := Resolution{Status: StatusTimedOut, Fallback: FallbackNone, ResolvedAt: now.UTC().Truncate(time.Millisecond)}
	answers := map[string]Answer{}
	for _, p := range q.Prompts {
		if len(p.Default) == 0 {
			return r
		}
		a := Answer{Selected: []string{}, Defaulted: true}
		for _, d := range p.Default {
			if k := OptionIndex(p, d); k >= 0 {
				a.Selected = append(a.Selected, p.Options[k].Label)
				if !p.MultiSelect {
					a.Action, a.Prefill = p.Options[k].Action, p.Options[k].Prefill
				}
			} else {
				a.CustomText = d
			}
		}
		answers[p.Question] = a
	}
	r.Answers, r.Fallback = answers, FallbackDefault
	return r
}
