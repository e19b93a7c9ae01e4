package brokertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// ruleTests check the approval rules (broker.RuleStore): ids that are
// never given twice, the agent filter, and a revocation that happens
// once and keeps who made it.
var ruleTests = []storeTest{
	{"AddListRevoke", testRulesAddListRevoke},
	{"RevokeTwiceKeepsTheFirst", testRulesRevokeTwice},
	{"RevokeUnknown", testRulesRevokeUnknown},
	{"ConcurrentAddsDistinctIDs", testRulesConcurrentAdds},
	{"FilterByAgent", testRulesFilterByAgent},
}

var ana = broker.Responder{Channel: "slack", User: "U2", Name: "ana", Person: &broker.PersonRef{ID: "ana", Name: "Ana"}}

func newRule(agent, pattern string) broker.Rule {
	return broker.Rule{Agent: agent, Tool: "Bash", Kind: broker.RulePrefix, Pattern: pattern, Project: "/home/ana/app",
		By: ana, At: time.Now().UTC().Truncate(time.Millisecond), Reason: "tests are safe"}
}

func testRulesAddListRevoke(t *testing.T, s broker.Store) {
	ctx := context.Background()
	r, err := s.AddRule(ctx, newRule("claude", "npm test"))
	if err != nil {
		t.Fatal(err)
	}
	if r.ID < 1 || r.Pattern != "npm test" || r.By.Person == nil || r.By.Person.ID != "ana" {
		t.Fatalf("stored %+v", r)
	}
	list, err := s.Rules(ctx, broker.RuleFilter{})
	if err != nil || len(list) != 1 || list[0].ID != r.ID || list[0].Project != "/home/ana/app" || !list[0].At.Equal(r.At) || list[0].Reason != "tests are safe" {
		t.Fatalf("Rules = %+v, %v", list, err)
	}
	bo := broker.Responder{Channel: "web", User: "bo"}
	at := time.Now().UTC().Truncate(time.Millisecond)
	rv, err := s.RevokeRule(ctx, r.ID, bo, at)
	if err != nil || rv.Revoked == nil || !rv.Revoked.Equal(at) || rv.RevokedBy == nil || rv.RevokedBy.User != "bo" {
		t.Fatalf("RevokeRule = %+v, %v", rv, err)
	}
	if list, err := s.Rules(ctx, broker.RuleFilter{}); err != nil || len(list) != 0 {
		t.Fatalf("active rules after the revocation = %+v, %v", list, err)
	}
	list, err = s.Rules(ctx, broker.RuleFilter{Revoked: true})
	if err != nil || len(list) != 1 || list[0].Revoked == nil || list[0].RevokedBy.User != "bo" || list[0].By.User != "U2" {
		t.Fatalf("every rule after the revocation = %+v, %v", list, err)
	}
}

func testRulesRevokeTwice(t *testing.T, s broker.Store) {
	ctx := context.Background()
	r, err := s.AddRule(ctx, newRule("", "go test"))
	if err != nil {
		t.Fatal(err)
	}
	first := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := s.RevokeRule(ctx, r.ID, broker.Responder{Channel: "web", User: "bo"}, first); err != nil {
		t.Fatal(err)
	}
	again, err := s.RevokeRule(ctx, r.ID, broker.Responder{Channel: "web", User: "cy"}, first.Add(time.Minute))
	if err != nil || again.Revoked == nil || !again.Revoked.Equal(first) || again.RevokedBy.User != "bo" {
		t.Fatalf("second RevokeRule = %+v, %v; want the first revocation kept", again, err)
	}
}

func testRulesRevokeUnknown(t *testing.T, s broker.Store) {
	ctx := context.Background()
	if _, err := s.RevokeRule(ctx, 4242, ana, time.Now()); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("RevokeRule(4242) = %v, want ErrNotFound", err)
	}
}

func testRulesConcurrentAdds(t *testing.T, s broker.Store) {
	ctx := context.Background()
	const n = 16
	ids := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, err := s.AddRule(ctx, newRule("claude", "make check"))
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = r.ID
		})
	}
	wg.Wait()
	seen := map[int64]bool{}
	for _, id := range ids {
		if id < 1 || seen[id] {
			t.Fatalf("ids %v: %d given twice or not at all", ids, id)
		}
		seen[id] = true
	}
	list, err := s.Rules(ctx, broker.RuleFilter{})
	if err != nil || len(list) != n {
		t.Fatalf("Rules = %d rules, %v; want %d", len(list), err, n)
	}
	for i := 1; i < len(list); i++ {
		if list[i-1].ID >= list[i].ID {
			t.Fatalf("rules not by id: %d before %d", list[i-1].ID, list[i].ID)
		}
	}
}

func testRulesFilterByAgent(t *testing.T, s broker.Store) {
	ctx := context.Background()
	for _, r := range []broker.Rule{newRule("claude", "npm test"), newRule("codex", "cargo test"), newRule("", "go vet")} {
		if _, err := s.AddRule(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		agent string
		want  []string
	}{
		{"claude", []string{"npm test", "go vet"}},
		{"codex", []string{"cargo test", "go vet"}},
		{"other", []string{"go vet"}},
		{"", []string{"npm test", "cargo test", "go vet"}},
	} {
		list, err := s.Rules(ctx, broker.RuleFilter{Agent: tc.agent})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range list {
			got = append(got, r.Pattern)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("rules of %q = %v, want %v", tc.agent, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("rules of %q = %v, want %v", tc.agent, got, tc.want)
			}
		}
	}
}
