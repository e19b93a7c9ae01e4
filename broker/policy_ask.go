package broker

import "slices"

// applyPolicy sets the team policies of q, a new question of agent on
// route: the route's, tightened by req's own, and the people it is asked
// for. A policy that loosens the route's, or that the question cannot
// meet, is refused with a *FieldError.
func (b *Broker) applyPolicy(q *Question, agent string, req *AskRequest, route Route, prompts []Prompt) error {
	if err := validateRequestedBy("requested_by", req.RequestedBy); err != nil {
		return err
	}
	pol, err := tighten(route.Policy, req.Policy, q.Responders)
	if err != nil {
		return err
	}
	if pol.quorum() > 1 && len(prompts) > 1 {
		return fieldErr("policy.quorum", "a quorum of %d needs a question of one prompt, not a dialog of %d", pol.quorum(), len(prompts))
	}
	if pol.Snooze != nil && q.Timeout > pol.longest() {
		return fieldErr("timeout", "%s is more than the route's timeout_max of %s", q.Timeout, pol.longest())
	}
	q.Policy = pol
	for _, who := range append(slices.Clone(b.cfg.OnBehalfOf[agent]), req.RequestedBy...) {
		if !slices.Contains(q.RequestedBy, who) {
			q.RequestedBy = append(q.RequestedBy, who)
		}
	}
	return nil
}
