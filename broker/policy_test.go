package broker_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// newPolicyEnv is newEnv with one route of policy pol, asked by agent
// "agent" on behalf of onBehalf, posting to chats c1 and c2 of channel
// "chat".
func newPolicyEnv(t *testing.T, responders []string, pol broker.Policy, onBehalf ...string) *env {
	t.Helper()
	e, _ := newPolicyEnvOn(t, []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}}, responders, pol, onBehalf...)
	return e
}

// newPolicyEnvOn is newPolicyEnv posting to targets, with the people of
// teamPeople; it returns the recording channel of each channel named.
func newPolicyEnvOn(t *testing.T, targets []broker.Target, responders []string, pol broker.Policy, onBehalf ...string) (*env, map[string]*brokertest.Channel) {
	t.Helper()
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: targets, Responders: responders, Policy: pol}}
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	chans := map[string]*brokertest.Channel{}
	var channels []broker.Channel
	for _, tg := range targets {
		if chans[tg.Channel] == nil {
			chans[tg.Channel] = brokertest.NewChannel(tg.Channel)
			channels = append(channels, chans[tg.Channel])
		}
	}
	b, st := startBridge(t, broker.Config{Routes: routes, Now: clk.Now, OnBehalfOf: map[string][]string{"agent": onBehalf}, People: teamPeople(t)},
		channels...)
	return &env{b: b, st: st, ch: chans["chat"], clock: clk}, chans
}

// teamPeople is the directory of the policy tests: ana, bo and cy, each
// with their account on the test channel "chat" (Ana also on "other").
func teamPeople(t *testing.T) *broker.People {
	t.Helper()
	return newPeople(t, []broker.Person{
		{ID: "ana", Accounts: []string{"chat:ana", "other:ana-2"}},
		{ID: "bo", Accounts: []string{"chat:bo"}},
		{ID: "cy", Accounts: []string{"chat:cy"}},
	}, map[string][]string{"sre": {"ana", "bo", "cy"}})
}

func allowDeny() *broker.AskRequest {
	return &broker.AskRequest{SessionID: "s1", Question: "Deploy build 412 to production?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}}
}

var sre = []string{"ana", "bo", "cy"}

func TestQuorumTwoVotesResolveWithBothVoters(t *testing.T) {
	e := newPolicyEnv(t, sre, broker.Policy{Quorum: 2})
	q := e.ask(t, allowDeny())
	ctx := context.Background()
	r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 1"))
	if !r.OK || r.Question.Status != broker.StatusPending || r.Text != "Recorded your vote: Allow (1 of 2: Allow by ana)." {
		t.Fatalf("first vote: %+v", r)
	}
	if got := broker.DeadlineText(r.Question, time.UTC); !strings.Contains(got, "1 of 2: Allow by ana") {
		t.Fatalf("copy line %q does not show the vote", got)
	}
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 2 }) {
		t.Fatalf("copies edited %d times after the first vote, want 2", len(e.ch.Updates()))
	}
	again := e.b.HandleInbound(ctx, in("c2", "ana", "/answer "+q.ID+" Allow"))
	if again.OK || !errors.Is(again.Err, broker.ErrConflict) || again.Text != "You already chose Allow on "+q.ID+"; nothing changed." {
		t.Fatalf("repeated vote: %+v", again)
	}
	changed := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 2"))
	// A Deny vote declines at once (quorum_deny is 1).
	if !changed.OK || changed.Question.Status != broker.StatusDeclined || !strings.HasPrefix(changed.Text, "Changed your vote to: Deny.") {
		t.Fatalf("changed vote: %+v", changed)
	}

	q2 := e.ask(t, &broker.AskRequest{SessionID: "s2", Question: "Deploy?", Options: []broker.Option{{Label: "Now"}, {Label: "Tonight"}}})
	e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q2.ID+" 1"))
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q2.ID+" 2")); !r.OK || r.Question.Status != broker.StatusPending {
		t.Fatalf("change before quorum: %+v", r)
	}
	done := e.b.HandleInbound(ctx, in("c2", "bo", "/answer "+q2.ID+" Tonight"))
	if !done.OK || done.Question.Status != broker.StatusAnswered {
		t.Fatalf("second vote: %+v", done)
	}
	res := done.Question.Result()
	if len(res.Voters) != 2 || res.Voters[0].User != "ana" || res.Voters[1].User != "bo" || res.Answers["Deploy?"].Selected[0] != "Tonight" {
		t.Fatalf("result = %+v, want Tonight by ana and bo", res)
	}
	raw, _ := json.Marshal(res)
	var wire struct {
		AnsweredBy []broker.Responder `json:"answered_by"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil || len(wire.AnsweredBy) != 2 {
		t.Fatalf("answered_by in JSON %s: %v", raw, err)
	}
	var back broker.Result
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Voters) != 2 || back.AnsweredBy.User != "ana" {
		t.Fatalf("result read back: %+v, %v", back, err)
	}
	log, err := policyEntries(e.st.Audit(ctx, q2.ID))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, a := range log {
		kinds = append(kinds, a.Kind+":"+a.By.User+":"+a.Choice)
	}
	if strings.Join(kinds, ",") != "vote:ana:Now,vote_changed:ana:Tonight,vote:bo:Tonight" {
		t.Fatalf("audit = %v", kinds)
	}
}

func TestSingleAnswerKeepsObjectAnsweredBy(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{})
	q := e.ask(t, allowDeny())
	r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 1"))
	raw, _ := json.Marshal(r.Question.Result())
	if !strings.Contains(string(raw), `"answered_by":{"channel":"chat","user":"ana"`) {
		t.Fatalf("result JSON %s: answered_by is not one object", raw)
	}
}

func TestQuorumConcurrentVotesOneResolution(t *testing.T) {
	e := newPolicyEnv(t, sre, broker.Policy{Quorum: 2})
	for range 10 {
		q := e.ask(t, &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{{Label: "Allow"}, {Label: "Later"}}})
		var wg sync.WaitGroup
		replies := make([]broker.Reply, 2)
		for i, u := range []string{"ana", "bo"} {
			wg.Go(func() { replies[i] = e.b.HandleInbound(context.Background(), in("c1", u, "/answer "+q.ID+" 1")) })
		}
		wg.Wait()
		for _, r := range replies {
			if !r.OK {
				t.Fatalf("vote refused: %+v", r)
			}
		}
		got, err := e.st.Get(context.Background(), q.ID)
		if err != nil || got.Status != broker.StatusAnswered || len(got.Result().Voters) != 2 {
			t.Fatalf("after two votes at once: %+v, %v; want answered by both", got, err)
		}
	}
}

func TestVoteRacingDeadlineHasOneOutcome(t *testing.T) {
	e := newPolicyEnv(t, sre, broker.Policy{Quorum: 2})
	for range 10 {
		q := e.ask(t, &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{{Label: "Allow"}, {Label: "Later"}}})
		e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 1"))
		stored, _ := e.st.Get(context.Background(), q.ID)
		var wg sync.WaitGroup
		var vote broker.Reply
		wg.Go(func() { vote = e.b.HandleInbound(context.Background(), in("c1", "bo", "/answer "+q.ID+" 1")) })
		wg.Go(func() { _, _ = e.b.Expire(context.Background(), stored, q.ExpiresAt) })
		wg.Wait()
		got, _ := e.st.Get(context.Background(), q.ID)
		switch got.Status {
		case broker.StatusAnswered:
			if len(got.Result().Voters) != 2 {
				t.Fatalf("answered with voters %v", got.Result().Voters)
			}
		case broker.StatusTimedOut:
			if vote.OK && vote.Question.Status == broker.StatusAnswered {
				t.Fatalf("timed out, but the vote was told %q", vote.Text)
			}
		default:
			t.Fatalf("status %s after the race", got.Status)
		}
	}
}

func TestRequesterCannotApprove(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{ForbidRequester: true}, "chat:ana")
	req := allowDeny()
	req.RequestedBy = []string{"bo"}
	q := e.ask(t, req)
	if got := broker.DeadlineText(q, time.UTC); !strings.Contains(got, "asked by chat:ana, bo") {
		t.Fatalf("copy line %q does not say who asked", got)
	}
	for _, u := range []string{"ana", "bo"} {
		r := e.b.HandleInbound(context.Background(), in("c1", u, "/answer "+q.ID+" 1"))
		if r.OK || !errors.Is(r.Err, broker.ErrForbidden) || r.Text != "You asked for "+q.ID+", so you cannot approve it: someone else must answer. Nothing was recorded." {
			t.Fatalf("%s's answer: %+v", u, r)
		}
	}
	if r := e.b.HandleInbound(context.Background(), in("c1", "cy", "/answer "+q.ID+" 1")); !r.OK || r.Question.Status != broker.StatusAnswered {
		t.Fatalf("cy's answer: %+v", r)
	}
	log, _ := policyEntries(e.st.Audit(context.Background(), q.ID))
	if len(log) != 2 || log[0].Kind != broker.AuditRefused || log[0].By.User != "ana" {
		t.Fatalf("audit = %+v, want two refusals", log)
	}
}

func TestSnoozeMovesDeadlineUpToTheLimits(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 3}, TimeoutMax: broker.Duration(80 * time.Minute)})
	q := e.ask(t, allowDeny())
	ctx := context.Background()
	r := e.b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q.ID))
	if !r.OK || r.Text != "Snoozed: "+q.ID+" now expires at 15:00 UTC (1 of 3 snoozes)." {
		t.Fatalf("snooze: %+v", r)
	}
	got, _ := e.st.Get(ctx, q.ID)
	if !got.ExpiresAt.Equal(q.ExpiresAt.Add(30*time.Minute)) || !got.NextReminder().Equal(q.Reminders[0].Add(30*time.Minute)) {
		t.Fatalf("after snooze: expires %v, next reminder %v", got.ExpiresAt, got.NextReminder())
	}
	if line := broker.DeadlineText(got, time.UTC); line != "Expires 15:00 UTC · snoozed by ana" {
		t.Fatalf("copy line = %q", line)
	}
	if r := e.b.HandleInbound(ctx, in("c2", "bo", "snooze "+q.ID)); !r.OK || !strings.Contains(r.Text, "now expires at 15:20 UTC") {
		t.Fatalf("second snooze (capped by timeout_max): %+v", r)
	}
	r = e.b.HandleInbound(ctx, in("c2", "bo", "/snooze "+q.ID))
	if r.OK || !errors.Is(r.Err, broker.ErrLimit) || !strings.Contains(r.Text, "already has its latest deadline allowed (15:20 UTC)") {
		t.Fatalf("snooze past timeout_max: %+v", r)
	}
	if ids, _ := e.st.Due(ctx, q.ExpiresAt, 10); len(ids) != 0 {
		t.Fatalf("due at the first deadline: %v", ids)
	}
	log, _ := policyEntries(e.st.Audit(ctx, q.ID))
	if len(log) != 3 || log[0].Kind != broker.AuditSnoozed || log[2].Kind != broker.AuditRefused {
		t.Fatalf("audit = %+v", log)
	}
}

func TestSnoozeMaxAndRouteWithoutSnooze(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(10 * time.Minute), Max: 1}})
	q := e.ask(t, allowDeny())
	ctx := context.Background()
	e.b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q.ID))
	r := e.b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q.ID))
	if r.OK || r.Text != q.ID+" was already snoozed 1 of 1 times; it still expires at 14:40 UTC. Nothing changed." {
		t.Fatalf("snooze beyond max: %+v", r)
	}
	plain := newPolicyEnv(t, nil, broker.Policy{})
	q2 := plain.ask(t, allowDeny())
	r = plain.b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q2.ID))
	got, _ := plain.st.Get(ctx, q2.ID)
	if r.OK || !errors.Is(r.Err, broker.ErrInvalid) || !strings.Contains(r.Text, "its route allows no snooze") || !got.ExpiresAt.Equal(q2.ExpiresAt) {
		t.Fatalf("snooze without a snooze policy: %+v", r)
	}
}

func TestSnoozedQuestionIsNotExpiredByStaleSweep(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(10 * time.Minute), Max: 1}})
	q := e.ask(t, allowDeny())
	e.b.HandleInbound(context.Background(), in("c1", "ana", "/snooze "+q.ID))
	// A sweeper that read the question before the snooze.
	_, err := e.b.Expire(context.Background(), q, q.ExpiresAt)
	got, _ := e.st.Get(context.Background(), q.ID)
	if !errors.Is(err, broker.ErrNotDue) || got.Status != broker.StatusPending {
		t.Fatalf("stale expire: %v, status %s", err, got.Status)
	}
}

// TestSnoozedQuestionReadAfterTheSnooze: a sweeper that found the
// question due, then read it after a snooze, leaves it pending.
func TestSnoozedQuestionReadAfterTheSnooze(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(10 * time.Minute), Max: 1}})
	q := e.ask(t, allowDeny())
	ctx := context.Background()
	e.b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q.ID))
	fresh, _ := e.st.Get(ctx, q.ID)
	_, err := e.b.Expire(ctx, fresh, q.ExpiresAt)
	got, _ := e.st.Get(ctx, q.ID)
	if !errors.Is(err, broker.ErrNotDue) || got.Status != broker.StatusPending || !got.ExpiresAt.Equal(q.ExpiresAt.Add(10*time.Minute)) {
		t.Fatalf("expire after the snooze: %v, status %s expiring %v", err, got.Status, got.ExpiresAt)
	}
}

// TestExpireBeforeTheDeadline: a question no one snoozed is timed out at
// the now its caller gives, even before its deadline, keeping the
// answers given.
func TestExpireBeforeTheDeadline(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{})
	ctx := context.Background()
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Default: broker.StringList{"SQLite"}},
		{Question: "Which cache?", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	// Read before the answer lands: Expire reads again and keeps it.
	stale, _ := e.st.Get(ctx, q.ID)
	ana := broker.Responder{Channel: "chat", User: "ana"}
	if _, err := e.st.SaveProgress(ctx, q.ID, 1, broker.Answer{Selected: []string{"Redis"}, AnsweredBy: &ana}); err != nil {
		t.Fatal(err)
	}
	got, err := e.b.Expire(ctx, stale, q.ExpiresAt.Add(-time.Minute))
	if err != nil {
		t.Fatalf("expire before the deadline: %v", err)
	}
	c, d := got.Answers["Which cache?"], got.Answers["Which database?"]
	if got.Status != broker.StatusTimedOut || got.Fallback != broker.FallbackDefault || c.AnsweredBy == nil || c.AnsweredBy.User != "ana" || c.Defaulted ||
		!d.Defaulted || strings.Join(d.Selected, ",") != "SQLite" {
		t.Fatalf("expired: %s fallback %s answers %+v", got.Status, got.Fallback, got.Answers)
	}
}

func TestPolicyBadInputs(t *testing.T) {
	for _, tc := range []struct {
		name       string
		responders []string
		pol        broker.Policy
		want       string
	}{
		{"quorum above responders", []string{"ana", "bo"}, broker.Policy{Quorum: 3}, "routes.x.policy.quorum: 3 is more than the 2 people the responders name"},
		{"accounts of nobody", []string{"slack:U1", "slack:U2"}, broker.Policy{Quorum: 2}, "routes.x.policy.quorum: 2 is more than the 0 people the responders name"},
		{"two accounts of one person", []string{"chat:ana", "other:ana-2"}, broker.Policy{Quorum: 2}, "2 is more than the 1 people the responders name"},
		{"quorum below one", sre, broker.Policy{Quorum: -1}, "routes.x.policy.quorum: -1 is less than 1"},
		{"quorum without responders", nil, broker.Policy{Quorum: 2}, "a quorum of 2 needs responders"},
		{"snooze max zero", nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(time.Hour)}}, "snooze.max: 0 is less than 1"},
	} {
		err := broker.ValidatePolicy("routes.x.policy", tc.pol, tc.responders, teamPeople(t))
		if !errors.Is(err, broker.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := broker.ValidatePolicy("p", broker.Policy{Quorum: 5}, []string{"role:sre"}, nil); err != nil {
		t.Errorf("quorum of a role: %v", err)
	}
	if err := broker.ValidatePolicy("p", broker.Policy{Quorum: 3}, []string{"group:sre"}, teamPeople(t)); err != nil {
		t.Errorf("quorum of a group of three: %v", err)
	}

	e := newPolicyEnv(t, sre, broker.Policy{Quorum: 2})
	for _, tc := range []struct {
		name string
		pol  *broker.Policy
		want string
	}{
		{"loosening the quorum", &broker.Policy{Quorum: 1}, "policy.quorum: 1 is less than the route's quorum of 2: a question may tighten the route's policies, never loosen them"},
		{"quorum beyond responders", &broker.Policy{Quorum: 4}, "policy.quorum: 4 is more than the 3 people the responders name"},
		{"snooze the route does not allow", &broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(time.Hour), Max: 1}}, "policy.snooze: the route allows no snooze"},
	} {
		req := allowDeny()
		req.Policy = tc.pol
		_, _, err := e.b.Ask(context.Background(), "agent", req)
		if !errors.Is(err, broker.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	req := &broker.AskRequest{Questions: []broker.Prompt{{Question: "A?"}, {Question: "B?"}}}
	if _, _, err := e.b.Ask(context.Background(), "agent", req); err == nil || !strings.Contains(err.Error(), "needs a question of one prompt") {
		t.Errorf("dialog with a quorum: %v", err)
	}
	if qs, _ := e.st.List(context.Background(), broker.Filter{}); len(qs) != 0 {
		t.Errorf("refused asks stored %d questions", len(qs))
	}
}

// TestRepliesDateADeadlineNotToday checks that /pending and a snooze's
// reply name the day of a deadline that is not today, as the card does:
// a question of 3 days read "expires at 14:00 UTC" on the day it was
// asked.
func TestRepliesDateADeadlineNotToday(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 3}})
	req := allowDeny()
	req.Timeout = dur(3 * 24 * time.Hour)
	q := e.ask(t, req)
	ctx := context.Background()
	r := e.b.HandleInbound(ctx, in("c1", "ana", "/pending"))
	if want := q.ID + ": Deploy build 412 to production? (Expires Wed 2 Dec 14:00 UTC)"; !r.OK || !strings.Contains(r.Text, want) {
		t.Fatalf("/pending: %q, want a line %q", r.Text, want)
	}
	r = e.b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q.ID))
	if want := "Snoozed: " + q.ID + " now expires at Wed 2 Dec 14:30 UTC (1 of 3 snoozes)."; !r.OK || r.Text != want {
		t.Fatalf("snooze: %q, want %q", r.Text, want)
	}
}
