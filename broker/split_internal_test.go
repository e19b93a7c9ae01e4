package broker

import (
	"context"
	"slices"
	"testing"
)

// splitChannel is a channel whose copies are in-process for the chats
// it lists.
type splitChannel struct {
	name  string
	local []string
}

func (c splitChannel) Name() string { return c.name }
func (c splitChannel) Post(context.Context, *Question, string) (MessageRef, error) {
	return MessageRef{}, nil
}
func (c splitChannel) InProcess(chat string) bool { return slices.Contains(c.local, chat) }

// TestSplitTargets checks the split of targets into in-process and
// outbox ones, in order, for mixed, all-local, all-remote and empty
// lists, and that appending to either side never writes into the
// question's own targets.
func TestSplitTargets(t *testing.T) {
	b := &Broker{channels: map[string]Channel{
		"web":   splitChannel{name: "web", local: []string{""}},
		"slack": splitChannel{name: "slack"},
		"mixed": splitChannel{name: "mixed", local: []string{"here"}},
	}}
	web, slack := Target{Channel: "web"}, Target{Channel: "slack", Chat: "C1"}
	here, there := Target{Channel: "mixed", Chat: "here"}, Target{Channel: "mixed", Chat: "there"}
	gone := Target{Channel: "unregistered"}
	for _, tc := range []struct {
		name              string
		ts, local, remote []Target
	}{
		{"mixed", []Target{slack, web, there, here, gone}, []Target{web, here}, []Target{slack, there, gone}},
		{"all in-process", []Target{web, here}, []Target{web, here}, nil},
		{"none in-process", []Target{slack, gone}, nil, []Target{slack, gone}},
		{"empty", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The question's targets with room to spare, as an append
			// may leave them.
			ts := append(make([]Target, 0, len(tc.ts)+4), tc.ts...)
			local, remote := b.splitTargets(ts)
			if !slices.Equal(local, tc.local) || !slices.Equal(remote, tc.remote) {
				t.Fatalf("split = %v, %v; want %v, %v", local, remote, tc.local, tc.remote)
			}
			_ = append(local, gone)
			_ = append(remote, web)
			if spare := ts[len(ts):cap(ts)]; slices.Contains(spare, gone) || slices.Contains(spare, web) {
				t.Fatalf("an append to a side wrote into the targets' array: %v", spare)
			}
		})
	}
}
