package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/sqlite"
)

// EnvConfig says what a run runs against.
type EnvConfig struct {
	// Store is "sqlite", "redis" (a private redis-server the tool starts)
	// or a redis:// URL of a Redis to use.
	Store string
	// Instances is how many `bridge serve` processes to start (1 or 2;
	// two need Redis).
	Instances int
	// Bridge is the bridge binary; empty means build cmd/bridge.
	Bridge string
	// Servers are base URLs of bridges already running; when set, no
	// bridge is started and Store names the store they use.
	Servers []string
	// AOF turns on the append-only file of a private Redis.
	AOF bool
	// Profile is the bridges' configuration; empty means ProfileDefault.
	Profile Profile
	// Capacity lifts the connection and pending caps, for runs that hold
	// many questions or long-polls at once.
	Capacity bool
	// ExtraConfig is appended to the bridges' configuration file, and Env
	// added to their environment.
	ExtraConfig string
	Env         []string
	// NoBridge starts only the store, for runs that work in-process.
	NoBridge bool
}

// Env is the set of processes of one run.
type Env struct {
	Servers []string
	// Config describes the bridges' configuration, for reports.
	Config   string
	Bridges  []*Bridge
	Redis    *RedisServer
	RedisURL string
	dir      string
	sqlite   string
}

// StartEnv starts what cfg asks for in a new temporary directory.
func StartEnv(ctx context.Context, cfg EnvConfig) (*Env, error) {
	if cfg.Instances == 0 {
		cfg.Instances = 1
	}
	isRedis := cfg.Store == "redis" || strings.HasPrefix(cfg.Store, "redis://")
	switch {
	case cfg.Store != "sqlite" && !isRedis:
		return nil, fmt.Errorf("bench: --store %q: use sqlite, redis or a redis:// URL", cfg.Store)
	case cfg.Instances < 1 || cfg.Instances > 2:
		return nil, fmt.Errorf("bench: --instances %d: use 1 or 2", cfg.Instances)
	case cfg.Instances == 2 && !isRedis && len(cfg.Servers) == 0:
		return nil, fmt.Errorf("bench: two instances share a store only with Redis; use --store redis")
	}
	dir, err := os.MkdirTemp("", "askbench-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	e := &Env{dir: dir}
	ok := false
	defer func() {
		if !ok {
			e.Close()
		}
	}()
	switch {
	case cfg.Store == "redis":
		if e.Redis, err = StartRedis(ctx, dir, cfg.AOF); err != nil {
			return nil, err
		}
		e.RedisURL = e.Redis.URL()
	case isRedis:
		e.RedisURL = cfg.Store
	default:
		e.sqlite = filepath.Join(dir, "bridge-0", "askbridge.db")
	}
	if cfg.Profile == "" {
		cfg.Profile = ProfileDefault
	}
	file, desc := bridgeConfig(cfg.Profile, cfg.Capacity, cfg.ExtraConfig)
	if len(cfg.Servers) > 0 || cfg.NoBridge {
		e.Servers, e.Config = cfg.Servers, "bridges started elsewhere"
		ok = true
		return e, nil
	}
	bin := cfg.Bridge
	if bin == "" {
		if bin, err = BuildBridge(ctx, dir); err != nil {
			return nil, err
		}
	}
	for i := range cfg.Instances {
		b, err := StartBridge(ctx, bin, filepath.Join(dir, "bridge-"+strconv.Itoa(i)), e.RedisURL, file, cfg.Env)
		if err != nil {
			return nil, err
		}
		e.Bridges = append(e.Bridges, b)
		e.Servers = append(e.Servers, b.URL)
	}
	e.Config = desc
	ok = true
	return e, nil
}

// Dir is the run's temporary directory.
func (e *Env) Dir() string { return e.dir }

// Close stops the bridges and Redis and removes the directory.
func (e *Env) Close() {
	for _, b := range e.Bridges {
		b.Kill()
	}
	if e.Redis != nil {
		e.Redis.Kill()
	}
	removeAll(e.dir)
}

// IsRedis reports whether the run uses Redis.
func (e *Env) IsRedis() bool { return e.RedisURL != "" }

// RedisClient returns a client of the run's Redis; the caller closes it.
func (e *Env) RedisClient() (*goredis.Client, error) {
	o, err := goredis.ParseURL(strings.Split(e.RedisURL, "?")[0])
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return goredis.NewClient(o), nil
}

// quiet is the logger of stores the tool opens itself.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// OpenStore opens, in this process, a store of the same kind: for SQLite
// a new file named name in the run's directory (or, with name "", the
// first bridge's file), for Redis the same server under key prefix name.
func (e *Env) OpenStore(ctx context.Context, name string) (broker.Store, error) {
	if e.IsRedis() {
		u := e.RedisURL
		if name != "" {
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			u += sep + "key_prefix=" + name + ":"
		}
		st, err := redis.OpenURL(ctx, u, quiet)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		return st, nil
	}
	path := e.sqlite
	if name != "" {
		path = filepath.Join(e.dir, name+".db")
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return st, nil
}
