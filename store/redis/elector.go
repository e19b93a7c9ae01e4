package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// Elector is a leader lease in Redis: the leader of a name holds the key
// "<prefix>leader:<name>" with its instance id and a time to live, and
// renews it every third of that time. It implements broker.Elector.
type Elector struct {
	c      goredis.UniversalClient
	prefix string
	id     string
	ttl    time.Duration
	log    *slog.Logger
}

var _ broker.Elector = (*Elector)(nil)

// acquireScript takes the lease, or keeps it when this instance holds it.
// KEYS: lease. ARGV: 1 instance id, 2 ttl ms.
var acquireScript = newIdempotentScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`)

// renewScript extends the lease only while this instance holds it.
var renewScript = newIdempotentScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// releaseLeaseScript deletes the lease only while this instance holds it.
var releaseLeaseScript = newIdempotentScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// NewElector returns an elector over c with keys under DefaultKeyPrefix.
// instanceID names this instance (a random one when empty); ttl is how
// long a lease outlives its holder (at least 100ms; 15s is a sane value).
func NewElector(c goredis.UniversalClient, instanceID string, ttl time.Duration) *Elector {
	return newElector(c, DefaultKeyPrefix, instanceID, ttl, slog.Default())
}

// Elector returns a leader lease that shares the store's client and key
// prefix.
func (s *Store) Elector(instanceID string, ttl time.Duration) broker.Elector {
	return newElector(s.c, s.cfg.KeyPrefix, instanceID, ttl, s.log)
}

func newElector(c goredis.UniversalClient, prefix, id string, ttl time.Duration, log *slog.Logger) *Elector {
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	ttl = max(ttl, 100*time.Millisecond)
	return &Elector{c: c, prefix: prefix, id: id, ttl: ttl, log: log}
}

// RunAsLeader calls fn whenever this instance holds the lease of name,
// with a context that ends when the lease is lost (a renewal failed or
// another instance holds it). It keeps trying to acquire while not
// leader, and when ctx ends it releases the lease and returns nil. If fn
// returns on its own, the lease is released and fn runs again once
// acquired anew.
func (e *Elector) RunAsLeader(ctx context.Context, name string, fn func(ctx context.Context)) error {
	key := e.prefix + "leader:" + name
	step := e.ttl / 3
	log := e.log.With("lease", name, "instance", e.id)
	for {
		if e.call(ctx, acquireScript, key) {
			log.Info("leadership acquired")
			ended := e.lead(ctx, key, step, fn)
			if ctx.Err() != nil {
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), step)
				_ = releaseLeaseScript.Run(rctx, e.c, []string{key}, e.id).Err()
				cancel()
				log.Info("leadership released")
				return nil
			}
			if ended {
				rctx, cancel := context.WithTimeout(ctx, step)
				_ = releaseLeaseScript.Run(rctx, e.c, []string{key}, e.id).Err()
				cancel()
			} else {
				log.Warn("leadership lost")
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(step):
		}
	}
}

// lead runs fn while renewals succeed; it reports whether fn returned on
// its own (rather than because the lease was lost or ctx ended).
func (e *Elector) lead(ctx context.Context, key string, step time.Duration, fn func(context.Context)) bool {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(lctx)
	}()
	t := time.NewTicker(step)
	defer t.Stop()
	for {
		select {
		case <-done:
			return ctx.Err() == nil
		case <-ctx.Done():
			cancel()
			<-done
			return false
		case <-t.C:
			if !e.call(ctx, renewScript, key) {
				cancel()
				<-done
				return false
			}
		}
	}
}

// call runs a lease script with a deadline of a third of the ttl and
// reports whether it returned 1.
func (e *Elector) call(ctx context.Context, sc *script, key string) bool {
	cctx, cancel := context.WithTimeout(ctx, e.ttl/3)
	defer cancel()
	n, err := sc.Run(cctx, e.c, []string{key}, e.id, e.ttl.Milliseconds()).Int()
	return err == nil && n == 1
}
