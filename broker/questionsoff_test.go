package broker_test

import (
	"context"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestNobodyAsked covers the asks that reach nobody on purpose: an agent
// whose questions are turned off, and a route without targets (even when
// the question names responders). Each resolves at once as unsupported,
// with a reason saying why, and no copy is posted.
func TestNobodyAsked(t *testing.T) {
	ch := brokertest.NewChannel("chat")
	b, _ := startBridge(t, broker.Config{
		Routes: map[string]broker.Route{
			broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}},
			"quiet":             {},
		},
		QuestionsOff: map[string]bool{"ci": true},
	}, ch)
	for _, tc := range []struct {
		name, agent, route string
		responders         []string
		want               broker.Status
		reason             string
	}{
		{"questions off", "ci", "", nil, broker.StatusUnsupported, "questions are turned off for this agent"},
		{"questions off on a quiet route", "ci", "quiet", nil, broker.StatusUnsupported, "questions are turned off for this agent"},
		{"route without targets", "agent", "quiet", nil, broker.StatusUnsupported, `route "quiet" has no targets: nobody is asked`},
		{"route without targets, with responders", "agent", "quiet", []string{"slack:U123"}, broker.StatusUnsupported, `route "quiet" has no targets: nobody is asked`},
		{"another agent is asked", "agent", "", nil, broker.StatusPending, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(ch.Posts())
			req := dbQuestion()
			req.SessionID, req.Route, req.Responders = tc.name, tc.route, tc.responders
			q, created, err := b.Ask(context.Background(), tc.agent, req)
			if err != nil || !created {
				t.Fatalf("ask: created=%v err=%v", created, err)
			}
			if q.Status != tc.want || q.Reason != tc.reason {
				t.Fatalf("%s %q, want %s %q", q.Status, q.Reason, tc.want, tc.reason)
			}
			posted := len(ch.Posts()) - before
			if tc.want == broker.StatusUnsupported && posted != 0 {
				t.Fatalf("%d copies posted, want none", posted)
			}
			stored, err := b.Get(context.Background(), tc.agent, q.ID)
			if err != nil || stored.Status != tc.want {
				t.Fatalf("stored: %v %v", stored, err)
			}
		})
	}
}
