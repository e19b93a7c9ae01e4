package brokertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
)

var escalationTests = []storeTest{
	{"Index", testEscalationIndex},
	{"StepClaimedOnce", testEscalationClaimedOnce},
}

// testEscalationIndex checks that the next escalation step an Amend
// records is found by DueEscalations from its time on, and no more once
// it is cleared or the question is resolved.
func testEscalationIndex(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	other := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	at := now.Add(10 * time.Minute)
	if _, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: broker.PolicyState{EscalateAt: at}}); err != nil {
		t.Fatalf("Amend: %v", err)
	}
	if _, err := s.Amend(ctx, other.ID, 0, broker.Amendment{State: broker.PolicyState{EscalateAt: at.Add(time.Minute)}}); err != nil {
		t.Fatalf("Amend: %v", err)
	}
	if g := mustGet(t, s, q.ID); !g.State.EscalateAt.Equal(at) {
		t.Fatalf("escalate_at = %v, want %v", g.State.EscalateAt, at)
	}
	due := func(when time.Time) []string {
		t.Helper()
		ids, err := s.DueEscalations(ctx, when, 10)
		if err != nil {
			t.Fatalf("DueEscalations: %v", err)
		}
		return ids
	}
	if ids := due(at.Add(-time.Millisecond)); len(ids) != 0 {
		t.Fatalf("DueEscalations before the step = %v, want none", ids)
	}
	if ids := due(at.Add(2 * time.Minute)); len(ids) != 2 || ids[0] != q.ID || ids[1] != other.ID {
		t.Fatalf("DueEscalations after both steps = %v, want [%s %s] earliest first", ids, q.ID, other.ID)
	}
	if _, err := s.Amend(ctx, q.ID, 1, broker.Amendment{State: broker.PolicyState{Escalations: []broker.Escalation{{Route: "oncall", At: at}}}}); err != nil {
		t.Fatalf("Amend clearing the step: %v", err)
	}
	mustResolve(t, s, other.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(time.Second)})
	if ids := due(at.Add(time.Hour)); len(ids) != 0 {
		t.Fatalf("DueEscalations after the step was taken and the other question resolved = %v, want none", ids)
	}
}

// testEscalationClaimedOnce has two brokers on the store (two sweepers,
// as on two instances) take the same due escalation step at the same
// instant: exactly one takes it, one copy goes to the on-call chat, one
// audit entry is written, and the on-call responder may then answer.
func testEscalationClaimedOnce(t *testing.T, s broker.Store) {
	ctx := context.Background()
	for range 5 {
		team, oncall := NewChannel("slack"), NewChannel("telegram")
		routes := map[string]broker.Route{
			"default": {
				Targets: []broker.Target{{Channel: "slack", Chat: "C1"}}, Responders: []string{"slack:U1"}, Timeout: time.Hour,
				Policy: broker.Policy{Escalate: []broker.EscalationStep{{After: "25%", Route: "oncall"}, {After: "45m", Route: "oncall"}}},
			},
			"oncall": {Targets: []broker.Target{{Channel: "telegram", Chat: "-100"}}, Responders: []string{"telegram:42"}},
		}
		var brokers [2]*broker.Broker
		for i := range brokers {
			b, err := broker.New(broker.Config{Store: s, Routes: routes, ReminderPoints: []float64{}})
			if err != nil {
				t.Fatal(err)
			}
			outbox.Attach(b, s, outbox.Config{})
			b.Register(team)
			b.Register(oncall)
			t.Cleanup(b.Close)
			brokers[i] = b
		}
		q, _, err := brokers[0].Ask(ctx, "a1", &broker.AskRequest{Questions: []broker.Prompt{{Question: "Deploy?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}}}})
		if err != nil {
			t.Fatalf("Ask: %v", err)
		}
		step := q.CreatedAt.Add(15 * time.Minute)
		if ids, err := s.DueEscalations(ctx, step, 10); err != nil || len(ids) != 1 || ids[0] != q.ID {
			t.Fatalf("DueEscalations at the first step = %v, %v; want [%s]", ids, err, q.ID)
		}
		if took, err := brokers[0].Escalate(ctx, q.ID, step.Add(-time.Second)); took || err != nil {
			t.Fatalf("Escalate before the step = %v, %v; want nothing taken", took, err)
		}
		var wg sync.WaitGroup
		var took [2]bool
		var errs [2]error
		for i, b := range brokers {
			wg.Go(func() { took[i], errs[i] = b.Escalate(ctx, q.ID, step) })
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil || took[0] == took[1] {
			t.Fatalf("two sweepers took the step: %v (errors %v), want exactly one", took, errs)
		}
		g := mustGet(t, s, q.ID)
		if len(g.State.Escalations) != 1 || g.State.Escalations[0].Route != "oncall" || !g.State.EscalateAt.Equal(q.CreatedAt.Add(45*time.Minute)) {
			t.Fatalf("state after the step = %+v, want one escalation to oncall and the next step at 45m", g.State)
		}
		if ids, err := s.DueEscalations(ctx, step, 10); err != nil || len(ids) != 0 {
			t.Fatalf("DueEscalations after the step = %v, %v; want none until the next step", ids, err)
		}
		oncall.WaitFor(storeWait, func(c *Channel) bool { return len(c.Posts()) > 0 })
		if posts := oncall.Posts(); len(posts) != 1 || posts[0].ID != q.ID {
			t.Fatalf("on-call posts = %d, want one copy of %s", len(posts), q.ID)
		}
		if got := broker.PolicyText(g); got != "escalated to oncall" {
			t.Fatalf("copies show %q, want %q", got, "escalated to oncall")
		}
		if !team.WaitFor(storeWait, func(c *Channel) bool {
			u := c.Updates()
			return len(u) > 0 && broker.EscalatedText(u[len(u)-1]) == "escalated to oncall"
		}) {
			t.Fatalf("the team's copy was not edited to show the escalation")
		}
		log := mustAudit(t, s, q.ID)
		var escalated []broker.AuditEntry
		for _, e := range log {
			if e.Kind == broker.AuditEscalated {
				escalated = append(escalated, e)
			}
		}
		if len(escalated) != 1 || escalated[0].Detail != "to oncall" {
			t.Fatalf("audit = %+v; want one escalation to oncall", log)
		}
		msgs, err := s.Messages(ctx, q.ID)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("messages = %+v, %v; want the team's copy and the on-call copy", msgs, err)
		}
		r := brokers[1].HandleInbound(ctx, broker.Inbound{Channel: "telegram", Chat: "-100", User: "42", Text: "/answer " + q.ID + " Allow"})
		if !r.OK {
			t.Fatalf("the on-call responder's answer: %+v, want it recorded", r)
		}
		if g := mustGet(t, s, q.ID); g.Status != broker.StatusAnswered || g.AnsweredBy == nil || g.AnsweredBy.User != "42" {
			t.Fatalf("question after the on-call answer: %s by %+v, want answered by 42", g.Status, g.AnsweredBy)
		}
	}
}
