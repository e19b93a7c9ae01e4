package redis_test

import (
	"context"
	"fmt"
	"hash/crc32"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestAttachmentConformance runs the files contract against the shared
// Redis, each test under its own key prefix.
func TestAttachmentConformance(t *testing.T) {
	brokertest.TestAttachments(t, func(t *testing.T) broker.Store { return open(t, redistest.Shared(t)) })
}

// TestAttachmentConformanceCluster runs it on a Redis Cluster, where the
// files key must share the slot of the question's record.
func TestAttachmentConformanceCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	addrs := redistest.StartCluster(t)
	brokertest.TestAttachments(t, func(t *testing.T) broker.Store {
		return open(t, redisstore.Config{Addrs: addrs, Cluster: true, KeyPrefix: t.Name() + ":"})
	})
}

// TestFilesExpireWithQuestion: a question's files key lives as long as
// the longest pending question plus the retention, and once the question
// is resolved exactly as long as its record.
func TestFilesExpireWithQuestion(t *testing.T) {
	cfg := redistest.Shared(t)
	cfg.Retention = 24 * time.Hour
	s := open(t, cfg)
	ctx := context.Background()
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutAttachment(ctx, q.ID, broker.File{Name: "a.txt", Type: "text/plain", Data: []byte("hi")}, broker.MaxQuestionFiles); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("%s{s%d}:", cfg.KeyPrefix, crc32.ChecksumIEEE([]byte(q.ID))%16)
	ttl := func(key string) time.Duration {
		t.Helper()
		d, err := s.Client().PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := ttl(tag + "f:" + q.ID); d < 8*24*time.Hour {
		t.Fatalf("files of a pending question expire in %v, sooner than a pending question may live", d)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusDeclined, ResolvedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	files, record := ttl(tag+"f:"+q.ID), ttl(tag+"q:"+q.ID)
	if files <= 0 || files > record+time.Minute || record-files > time.Minute {
		t.Fatalf("after the answer the files expire in %v and the record in %v; want the same", files, record)
	}
}
