package broker_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

func TestNewPeopleBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		people []broker.Person
		groups map[string][]string
		want   string
	}{
		{"account under two people", []broker.Person{{ID: "ana", Accounts: []string{"slack:U1"}}, {ID: "bo", Accounts: []string{"slack:U1"}}}, nil,
			`people[1].accounts: "slack:U1" is listed under both "ana" and "bo"`},
		{"duplicate id", []broker.Person{{ID: "ana"}, {ID: "ana"}}, nil, `people[1].id: "ana" is listed twice`},
		{"id with a space", []broker.Person{{ID: "ana lima"}}, nil, `people[0].id: "ana lima" is not an id`},
		{"id in capitals", []broker.Person{{ID: "Ana"}}, nil, `people[0].id: "Ana" is not an id`},
		{"account without channel", []broker.Person{{ID: "ana", Accounts: []string{"U1"}}}, nil, `people[0].accounts[0]: "U1" is not an account`},
		{"web account listed", []broker.Person{{ID: "ana", Accounts: []string{"web:ana"}}}, nil, `people[0].accounts[0]: "web:ana": the web inbox account of a person is web:ana`},
		{"unknown person in a group", []broker.Person{{ID: "ana"}}, map[string][]string{"sre": {"ana", "zed"}}, `groups.sre[1]: "zed" is not a person listed under people`},
		{"empty group", []broker.Person{{ID: "ana"}}, map[string][]string{"sre": {}}, `groups.sre: the group is empty`},
		{"group names itself", []broker.Person{{ID: "ana"}}, map[string][]string{"sre": {"ana", "sre"}}, `groups.sre[1]: the group names itself`},
		{"group named like a person", []broker.Person{{ID: "ana"}}, map[string][]string{"ana": {"ana"}}, `groups.ana: "ana" is also a person's id`},
		{"nested group", []broker.Person{{ID: "ana"}}, map[string][]string{"sre": {"ana"}, "ops": {"sre"}}, `groups.ops[0]: "sre" is a group`},
	} {
		_, err := broker.NewPeople(tc.people, tc.groups)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	d, err := broker.NewPeople([]broker.Person{{ID: "ana", Name: "Ana Lima", Accounts: []string{"slack:U1", "telegram:42"}}}, map[string][]string{"sre": {"ana"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, acc := range [][2]string{{"slack", "U1"}, {"telegram", "42"}, {"web", "ana"}} {
		if p := d.Of(acc[0], acc[1]); p == nil || p.ID != "ana" || !p.InGroup("sre") {
			t.Errorf("Of(%s:%s) = %+v, want ana in sre", acc[0], acc[1], p)
		}
	}
	if p := d.Of("slack", "U9"); p != nil {
		t.Errorf("an account of nobody belongs to %+v", p)
	}
}

// newPeopleEnv is a broker with one route on two channels, "chat" (chat
// c1) and "other" (chat o1), with teamPeople: Ana has an account on
// both.
func newPeopleEnv(t *testing.T, responders []string, pol broker.Policy, onBehalf ...string) (*env, *brokertest.Channel) {
	t.Helper()
	e, chans := newPolicyEnvOn(t, []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "other", Chat: "o1"}}, responders, pol, onBehalf...)
	return e, chans["other"]
}

func inOther(user, text string) broker.Inbound {
	return broker.Inbound{Channel: "other", Chat: "o1", User: user, Name: user, Text: text}
}

// One person in two channels is one vote; an account of nobody cannot
// vote on a quorum; a vote names its person.
func TestQuorumCountsPeople(t *testing.T) {
	e, _ := newPeopleEnv(t, []string{"group:sre"}, broker.Policy{Quorum: 2})
	ctx := context.Background()
	q := e.ask(t, allowDeny())
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 1")); !r.OK {
		t.Fatalf("Ana's vote: %+v", r)
	}
	r := e.b.HandleInbound(ctx, inOther("ana-2", "/answer "+q.ID+" 1"))
	if r.OK || !errors.Is(r.Err, broker.ErrConflict) || r.Text != "You already chose Allow on "+q.ID+"; nothing changed." {
		t.Fatalf("Ana again from her other account: %+v, want refused as her own vote", r)
	}
	if r := e.b.HandleInbound(ctx, inOther("ana-2", "/answer "+q.ID+" 2")); !r.OK || r.Question.Status != broker.StatusDeclined || !strings.HasPrefix(r.Text, "Changed your vote to: Deny.") {
		t.Fatalf("Ana changes her vote from her other account: %+v, want her one vote changed", r)
	}

	q = e.ask(t, &broker.AskRequest{SessionID: "s2", Question: "Deploy 413?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}})
	unlinked := e.b.HandleInbound(ctx, inOther("zed", "/answer "+q.ID+" 1"))
	if unlinked.OK || !errors.Is(unlinked.Err, broker.ErrForbidden) {
		t.Fatalf("a vote from an account of nobody: %+v, want refused", unlinked)
	}
	// "zed" is no responder of group:sre either; a route open to all
	// shows the unlinked refusal itself.
	open, _ := newPeopleEnv(t, []string{"role:ops"}, broker.Policy{Quorum: 2})
	q = open.ask(t, allowDeny())
	zed := broker.Inbound{Channel: "other", Chat: "o1", User: "zed", Name: "zed", Roles: []string{"ops"}, Text: "/answer " + q.ID + " 1"}
	r = open.b.HandleInbound(ctx, zed)
	if r.OK || r.Text != "Your other account is not linked to a person on this route; nothing was recorded." {
		t.Fatalf("unlinked account with the role: %+v, want the unlinked refusal", r)
	}
	if g, _ := open.st.Get(ctx, q.ID); len(g.State.Votes) != 0 {
		t.Fatalf("the refused vote was recorded: %+v", g.State.Votes)
	}
	log, err := open.b.Audit(ctx, "agent", q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !hasAudit(log, broker.AuditRefused, broker.AuditUnlinked) {
		t.Fatalf("audit %+v has no unlinked refusal", log)
	}
	bo := broker.Inbound{Channel: "chat", Chat: "c1", User: "bo", Name: "bo", Roles: []string{"ops"}, Text: "/answer " + q.ID + " 1"}
	if r := open.b.HandleInbound(ctx, bo); !r.OK || r.Question.State.Votes[0].By.Person.ID != "bo" {
		t.Fatalf("Bo's vote: %+v, want it recorded as the person bo", r)
	}
}

func hasAudit(log []broker.AuditEntry, kind, reason string) bool {
	for _, e := range log {
		if e.Kind == kind && e.Reason == reason {
			return true
		}
	}
	return false
}

// forbid_requester refuses every account of the person the agent acts
// for, in every channel.
func TestRequesterIsAPerson(t *testing.T) {
	e, _ := newPeopleEnv(t, nil, broker.Policy{ForbidRequester: true}, "person:ana")
	ctx := context.Background()
	q := e.ask(t, allowDeny())
	for _, r := range []broker.Inbound{in("c1", "ana", "/answer "+q.ID+" 1"), inOther("ana-2", "/answer "+q.ID+" 1"), inOther("ana-2", "1")} {
		r.QuestionID = q.ID
		got := e.b.HandleInbound(ctx, r)
		if got.OK || !errors.Is(got.Err, broker.ErrForbidden) || !strings.Contains(got.Text, "so you cannot approve it") {
			t.Fatalf("the requester from %s:%s: %+v, want refused", r.Channel, r.User, got)
		}
	}
	// An account given in on_behalf_of stands for its whole person.
	e2, _ := newPeopleEnv(t, nil, broker.Policy{ForbidRequester: true}, "chat:ana")
	q = e2.ask(t, allowDeny())
	if got := e2.b.HandleInbound(ctx, inOther("ana-2", "/answer "+q.ID+" 1")); got.OK || !errors.Is(got.Err, broker.ErrForbidden) {
		t.Fatalf("the requester's other account: %+v, want refused", got)
	}
	if got := e2.b.HandleInbound(ctx, in("c1", "bo", "/answer "+q.ID+" 1")); !got.OK || got.Question.Status != broker.StatusAnswered {
		t.Fatalf("Bo: %+v, want answered", got)
	}
	log, _ := e2.b.Audit(ctx, "agent", q.ID)
	if !hasAudit(log, broker.AuditRefused, broker.AuditRequester) {
		t.Fatalf("audit %+v has no requester refusal", log)
	}
}

// Only options are votes: free text is a note on the person's vote or
// refused; Not ready is a note and never ends a quorum question; a bare
// command word is refused as ambiguous.
func TestOnlyOptionsVote(t *testing.T) {
	e, _ := newPeopleEnv(t, []string{"group:sre"}, broker.Policy{Quorum: 2})
	ctx := context.Background()
	q := e.ask(t, allowDeny())
	r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" ship it"))
	if r.OK || !errors.Is(r.Err, broker.ErrInvalid) || r.Text != "On "+q.ID+" a vote is one of the options: 1 Allow, 2 Deny (or /decline "+q.ID+"). Your text was not recorded." {
		t.Fatalf("free text before a vote: %+v", r)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "bo", "/answer "+q.ID+" ship it")); r.OK {
		t.Fatalf("a second person's same text: %+v, want refused", r)
	}
	if g, _ := e.st.Get(ctx, q.ID); g.Status != broker.StatusPending || len(g.State.Votes) != 0 {
		t.Fatalf("two people typing the same words: %s with %d votes, want pending with none", g.Status, len(g.State.Votes))
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/discuss "+q.ID+" which build is this?")); !r.OK || r.Question.Status != broker.StatusPending || !strings.Contains(r.Text, "not ready") {
		t.Fatalf("Not ready from one person: %+v, want a note, still pending", r)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 1 other after 18:00")); !r.OK || r.Question.State.Votes[0].Choice != "Allow" || r.Question.State.Votes[0].Note != "after 18:00" {
		t.Fatalf("option with a note: %+v", r)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" only the canary")); !r.OK || r.Question.State.Votes[0].Note != "only the canary" || len(r.Question.State.Votes) != 1 {
		t.Fatalf("free text after a vote: %+v, want the note on her vote", r)
	}
	for _, word := range []string{"snooze", "Decline", "discuss"} {
		r := e.b.HandleInbound(ctx, in("c1", "bo", "/answer "+q.ID+" "+word))
		if r.OK || !errors.Is(r.Err, broker.ErrInvalid) || !strings.Contains(r.Text, "is a command, not an answer") || !strings.Contains(r.Text, "bridge "+strings.ToLower(word)+" "+q.ID) {
			t.Fatalf("answer %q: %+v, want refused as ambiguous with a hint", word, r)
		}
	}
	// Two people's Allow with different notes agree.
	r = e.b.HandleInbound(ctx, in("c1", "bo", "/answer "+q.ID+" 1 other fine by me"))
	if !r.OK || r.Question.Status != broker.StatusAnswered {
		t.Fatalf("Bo's Allow with a note: %+v, want the quorum reached", r)
	}
	log, _ := e.b.Audit(ctx, "agent", q.ID)
	if !hasAudit(log, broker.AuditRefused, broker.AuditNotAVote) || !hasAudit(log, broker.AuditNote, "") {
		t.Fatalf("audit %+v lacks the refused text or the notes", log)
	}
	// Without a quorum, an option labelled like a command is an answer.
	plain, _ := newPeopleEnv(t, nil, broker.Policy{})
	q = plain.ask(t, &broker.AskRequest{SessionID: "s", Question: "Now?", Options: []broker.Option{{Label: "Snooze"}, {Label: "Go"}}})
	if r := plain.b.HandleInbound(ctx, in("c1", "zed", "/answer "+q.ID+" snooze")); !r.OK {
		t.Fatalf("an option labelled Snooze: %+v", r)
	}
}

// A question whose responders leave fewer people than its quorum is
// refused at ask time, with or without a policy of its own.
func TestAskRefusesQuorumAboveItsPeople(t *testing.T) {
	e, _ := newPeopleEnv(t, []string{"group:sre"}, broker.Policy{Quorum: 2})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  func(*broker.AskRequest)
		want string
	}{
		{"narrowed to one person", func(r *broker.AskRequest) { r.Responders = []string{"person:ana"} }, "policy.quorum: 2 is more than the 1 people the responders name"},
		{"narrowed to two accounts of one person", func(r *broker.AskRequest) { r.Responders = []string{"chat:ana", "other:ana-2"} }, "policy.quorum: 2 is more than the 1 people"},
		{"raised above the group", func(r *broker.AskRequest) { r.Policy = &broker.Policy{Quorum: 4} }, "policy.quorum: 4 is more than the 3 people"},
		{"unknown person", func(r *broker.AskRequest) { r.Responders = []string{"person:zed"} }, `responders[0]: "person:zed" names no person`},
		{"widened", func(r *broker.AskRequest) { r.Responders = []string{"chat:zed"} }, "never widen them"},
		{"free text only", func(r *broker.AskRequest) { r.Options = nil }, "policy.quorum: a quorum of 2 needs options to vote on"},
	} {
		req := allowDeny()
		req.SessionID = tc.name
		tc.req(req)
		_, _, err := e.b.Ask(ctx, "agent", req)
		if !errors.Is(err, broker.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// The requester does not count toward the quorum.
	e2, _ := newPeopleEnv(t, []string{"person:ana", "person:bo"}, broker.Policy{Quorum: 2, ForbidRequester: false}, "person:ana")
	req := allowDeny()
	req.Policy = &broker.Policy{ForbidRequester: true}
	if _, _, err := e2.b.Ask(ctx, "agent", req); err == nil || !strings.Contains(err.Error(), "1 people the responders name besides the requester") {
		t.Errorf("quorum of two with the requester among two: %v", err)
	}
	if qs, _ := e.st.List(ctx, broker.Filter{}); len(qs) != 0 {
		t.Errorf("refused asks stored %d questions", len(qs))
	}
}

// /pending in a chat lists only what the person asking may answer.
func TestPendingListsOnlyMine(t *testing.T) {
	e, _ := newPeopleEnv(t, []string{"person:ana"}, broker.Policy{})
	ctx := context.Background()
	q := e.ask(t, allowDeny())
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/pending")); !r.OK || !strings.Contains(r.Text, q.ID) {
		t.Fatalf("Ana's /pending: %+v, want her question", r)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "bo", "/pending")); !r.OK || strings.Contains(r.Text, q.ID) || r.Text != "No open questions here." {
		t.Fatalf("Bo's /pending: %+v, want none of Ana's", r)
	}
}
