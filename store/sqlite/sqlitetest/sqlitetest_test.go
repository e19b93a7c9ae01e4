package sqlitetest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// TestBrokerPostsAndReopens: the broker runs (a question is posted to the
// routed channel), and a second broker on the same file sees the
// question once the first is closed.
func TestBrokerPostsAndReopens(t *testing.T) {
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute("chat", "c1"))
	ch := brokertest.NewChannel("chat")
	b.Register(ch)
	q, _, err := b.Ask(context.Background(), "agent", &broker.AskRequest{Question: "Ship it?"})
	if err != nil {
		t.Fatal(err)
	}
	if !ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) == 1 }) {
		t.Fatal("the question was not posted: the broker is not running")
	}
	b.Close()
	b.Close() // a second Close, as the test's cleanup does, is harmless

	again := sqlitetest.OpenBroker(t, b.Path)
	if got, err := again.Store.Get(context.Background(), q.ID); err != nil || got.ID != q.ID {
		t.Fatalf("reopened store: %v, %v; want question %s", got, err, q.ID)
	}
}

// TestStartRefusesABadPath: a path that cannot hold a database is an
// error naming the store.
func TestStartRefusesABadPath(t *testing.T) {
	b, err := sqlitetest.Start(t.TempDir())
	if err == nil {
		b.Close()
		t.Fatal("Start on a directory succeeded")
	}
	if !strings.Contains(err.Error(), "open store") {
		t.Errorf("error %q does not say the store could not be opened", err)
	}
}
