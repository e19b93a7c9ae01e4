package bench

import (
	"context"
	"testing"
)

// TestScaleInbox fills each store with questions of which some are open
// and reads the inbox's pages: the first shows the newest 100 open and the
// history, and both pages were read as many times as asked.
func TestScaleInbox(t *testing.T) {
	for _, store := range []string{"sqlite", "redis"} {
		t.Run(store, func(t *testing.T) {
			r, err := ScaleInbox(context.Background(), InboxConfig{Store: store, Stored: 1200, Open: 120, Reads: 3, Workers: 8}, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			if r.OpenShown != 100 || r.History != 50 {
				t.Fatalf("first page shows %d open and %d resolved, want 100 and 50", r.OpenShown, r.History)
			}
			if r.First.Count != 3 || r.Next.Count != 3 || r.First.P50 <= 0 {
				t.Fatalf("reads: first %+v, next %+v; want 3 of each", r.First, r.Next)
			}
		})
	}
	if _, err := ScaleInbox(context.Background(), InboxConfig{Store: "mongo", Stored: 10, Open: 2, Reads: 1}, func(string) {}); err == nil {
		t.Fatal("an unknown store was accepted")
	}
}
