package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// TestPushConformance runs the Web Push contract on two stores opened on
// one file, as two processes of one machine would.
func TestPushConformance(t *testing.T) {
	brokertest.TestPush(t, func(t *testing.T) (broker.PushStore, broker.PushStore) {
		path := filepath.Join(t.TempDir(), "askbridge.db")
		var out [2]*sqlite.Store
		for i := range out {
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			out[i] = s
		}
		return out[0], out[1]
	})
}
