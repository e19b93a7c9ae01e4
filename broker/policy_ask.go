package broker

import "slices"

// applyPolicy sets the team policies of q, a new question of agent on
// route: the route's, tightened by req's own, and the people it is asked
// for. A policy that loosens the route's, or that the question cannot
// meet, is refused with a *FieldError.
func (b *Broker) applyPolicy(q *Question, agent string, req *AskRequest, route Route, prompts []Prompt) error {
	if err := validateRequestedBy("requested_by", req.RequestedBy, b.cfg.People); err != nil {
		return err
	}
	pol, err := tighten(route.Policy, req.Policy)
	if err != nil {
		return err
	}
	if pol.quorum() > 1 && len(prompts) > 1 {
		return fieldErr("policy.quorum", "a quorum of %d needs a question of one prompt, not a dialog of %d", pol.quorum(), len(prompts))
	}
	if pol.quorum() > 1 && len(prompts[0].Options) < 2 {
		return fieldErr("policy.quorum", "a quorum of %d needs options to vote on: a vote is one of them", pol.quorum())
	}
	if pol.Snooze != nil && q.Timeout > pol.longest() {
		return fieldErr("timeout", "%s is more than the route's timeout_max of %s", q.Timeout, pol.longest())
	}
	for _, who := range append(slices.Clone(b.cfg.OnBehalfOf[agent]), req.RequestedBy...) {
		if !slices.Contains(q.RequestedBy, who) {
			q.RequestedBy = append(q.RequestedBy, who)
		}
	}
	// The quorum is checked against the question's own responders (which
	// may narrow the route's), whether or not it set a policy, counting
	// people and never the requesters when the policy forbids them.
	var except map[string]bool
	if pol.ForbidRequester {
		except = requesterSet(q.RequestedBy, b.cfg.People)
	}
	if len(route.Targets) > 0 {
		if err := validatePolicy("policy", pol, q.Responders, b.cfg.People, except); err != nil {
			return err
		}
	}
	q.Policy = pol
	return nil
}
