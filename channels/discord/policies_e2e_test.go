package discord

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// prodRoute needs two of ana and bo to approve, and allows one snooze of
// 30 minutes.
func prodRoute(w *world) broker.Route {
	return broker.Route{
		Targets:    []broker.Target{{Channel: Name, Chat: w.chat}},
		Responders: []string{"discord:" + w.ana.ID, "discord:" + w.bo.ID},
		Policy:     broker.Policy{Quorum: 2, Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 1}},
	}
}

// Through the fake Discord: the Snooze button moves the deadline, a vote
// twice by one person is refused, and two people's Allow resolve the
// question with both as voters.
func TestEndToEndQuorumAndSnooze(t *testing.T) {
	w := newWorld(t, nil)
	a := w.ask(t, &broker.AskRequest{Route: "prod", Question: "Deploy 412?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}})
	click := func(u discordfake.User, customID string) string {
		t.Helper()
		r, err := w.fake.WaitResponse(testCtx(t), w.fake.Click(u, a.msg, customID))
		if err != nil {
			t.Fatal(err)
		}
		return r.Content()
	}
	got := click(w.ana, data(broker.StepSnooze, a.q.Ref(0)))
	moved, err := w.st.Get(testCtx(t), a.q.ID)
	if err != nil || !moved.ExpiresAt.Equal(a.q.ExpiresAt.Add(30*time.Minute)) {
		t.Fatalf("after the snooze: %+v, %v; want the deadline 30 minutes later", moved, err)
	}
	if !strings.Contains(got, moved.ExpiresAt.UTC().Format("15:04 UTC")) || !strings.Contains(got, "snoozed by ana") {
		t.Fatalf("the copy after the Snooze button reads %q, want the new deadline and who snoozed", got)
	}
	allow := data(broker.StepOption, a.q.Ref(0), 0)
	if got := click(w.ana, allow); !strings.Contains(got, "1 of 2: Allow by ana") {
		t.Fatalf("ana's vote: %q", got)
	}
	if got := click(w.ana, allow); !strings.Contains(got, "You already chose Allow on "+a.q.ID) {
		t.Fatalf("ana's second vote: %q, want the refusal", got)
	}
	w.fake.Click(w.bo, a.msg, allow)
	q := a.done(t)
	voters := q.Result().Voters
	if q.Status != broker.StatusAnswered || len(voters) != 2 || voters[0].User != w.ana.ID || voters[1].User != w.bo.ID {
		t.Fatalf("result: %s by %+v, want answered with ana and bo as voters", q.Status, voters)
	}
}
