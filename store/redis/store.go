package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// grace is added to the retention of resolved records so that Purge,
// which usually runs with the same horizon, still finds them.
const grace = time.Hour

// maxLifetime bounds how long a question stays pending (the broker clamps
// timeouts to 7 days); index entries older than it plus the retention
// belong to expired records and are trimmed as other entries are written.
const maxLifetime = 8 * 24 * time.Hour

// Store is the Redis implementation of broker.Store. Create it with Open
// or OpenURL; it is safe for concurrent use.
type Store struct {
	c goredis.UniversalClient
	// run sends the scripts that write, batching concurrent ones (batch.go).
	run  *batcher
	cfg  Config
	log  *slog.Logger
	k    keys
	feed *feed

	// cluster is set for a Redis Cluster client: scripts must then keep
	// to one hash slot, so an idempotent Create takes two steps.
	cluster bool

	// bodies keeps the bodies of recent questions (bodies.go).
	bodies *bodyCache
	// ttls remembers the index keys renewed lately (ttlmemo.go).
	ttls *ttlMemo
	// trails knows the ends of the audit trails appended to lately, and
	// their retention (audit.go).
	trails auditState

	// extRepair is when Due last looked for unlogged extended events
	// (µs; extended.go).
	extRepair atomic.Int64

	cancel    context.CancelFunc
	done      chan struct{}
	psMu      sync.Mutex
	ps        *goredis.PubSub
	closeOnce sync.Once
}

var _ broker.Store = (*Store)(nil)

// Open connects to Redis as cfg says, checks that it answers and starts
// listening to the resolution feed. Errors name the setting at fault.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	c := goredis.NewUniversalClient(cfg.options())
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		err = explainPing(pctx, &cfg, err)
		_ = c.Close()
		return nil, err
	}
	checkEviction(pctx, c, log)
	s := newStore(pctx, c, cfg, log)
	if err := s.buildInbox(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// OpenURL opens the store named by a --store flag such as
// "redis://127.0.0.1:6379/0" (see ParseURL).
func OpenURL(ctx context.Context, rawURL string, log *slog.Logger) (*Store, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg, log)
}

// checkEviction warns when Redis may evict keys under memory pressure:
// an evicted record is a lost question. Servers that refuse CONFIG (some
// managed services) are not checked.
func checkEviction(ctx context.Context, c goredis.UniversalClient, log *slog.Logger) {
	v, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		return
	}
	if p, ok := v["maxmemory-policy"]; ok && p != "noeviction" {
		log.Warn("Redis may evict askbridge keys under memory pressure; set maxmemory-policy noeviction", "maxmemory_policy", p)
	}
}

// newStore subscribes to the resolution feed and waits (within ctx) for
// the subscription to be confirmed, so that resolutions made elsewhere
// right after Open are not missed.
func newStore(ctx context.Context, c goredis.UniversalClient, cfg Config, log *slog.Logger) *Store {
	lctx, cancel := context.WithCancel(context.Background())
	s := &Store{
		c: c, run: newBatcher(c, scriptsInFlight), cfg: cfg, cluster: isCluster(c), log: log.With("store", "redis"), k: newKeys(cfg.KeyPrefix),
		feed: newFeed(), bodies: newBodyCache(), ttls: newTTLMemo(), cancel: cancel, done: make(chan struct{}),
	}
	ps := s.subscribe(lctx)
	if deadline, ok := ctx.Deadline(); ok {
		if _, err := ps.ReceiveTimeout(ctx, time.Until(deadline)); err != nil {
			s.log.Warn("resolution feed not subscribed yet", "err", err)
		}
	}
	go s.listen(lctx, ps)
	return s
}

// isCluster reports whether c talks to a Redis Cluster. A standalone or
// Sentinel (failover) client reaches one master that holds every key.
func isCluster(c goredis.UniversalClient) bool {
	_, ok := c.(*goredis.ClusterClient)
	return ok
}

// Client returns the underlying go-redis client (for the leader lease and
// for tests).
func (s *Store) Client() goredis.UniversalClient { return s.c }

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.c.Ping(ctx).Err(); err != nil {
		return wrap("ping", err)
	}
	return nil
}

// Close stops the feed listener, closes every watch channel and the
// client.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.stopListening()
		s.feed.closeAll()
		err = s.c.Close()
	})
	return err
}

// wrap adds op and, when Redis could not be reached or is not serving,
// broker.ErrUnavailable.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("redis store: %s: %w", op, err)
	}
	if unavailable(err) {
		return fmt.Errorf("redis store: %s: %w: %w", op, broker.ErrUnavailable, err)
	}
	return fmt.Errorf("redis store: %s: %w", op, err)
}

// unavailable reports whether err means "cannot reach or use Redis now"
// rather than a bad command.
func unavailable(err error) bool {
	var rerr goredis.Error
	if errors.As(err, &rerr) {
		for _, p := range []string{"LOADING", "CLUSTERDOWN", "MASTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS", "BUSY", "OOM"} {
			if goredis.HasErrorPrefix(err, p) {
				return true
			}
		}
		// Other server replies are answers, not outages; but go-redis
		// also reports some client-side conditions as redis.Error.
		return errors.Is(err, goredis.ErrClosed) || errors.Is(err, goredis.ErrPoolTimeout)
	}
	return true
}

// usec and nsec turn times into score and field values: microseconds are
// exact in a float64 score, nanoseconds keep times exact in fields.
func usec(t time.Time) int64 { return t.UnixMicro() }
func nsec(t time.Time) int64 { return t.UnixNano() }
