package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// explainPing turns the failed first Ping of Open into an error that names
// the setting to fix.
func explainPing(ctx context.Context, cfg *Config, err error) error {
	msg := err.Error()
	switch {
	case goredis.HasErrorPrefix(err, "WRONGPASS"), strings.Contains(msg, "invalid password"),
		strings.Contains(msg, "invalid username-password"):
		if cfg.PasswordEnv == "" {
			return fmt.Errorf("store.redis.password_env: Redis refused the login of user %q without a password: %w", cfg.Username, err)
		}
		return fmt.Errorf("store.redis.password_env: Redis refused the password in $%s (user %q): %w", cfg.PasswordEnv, userName(cfg), err)
	case goredis.HasErrorPrefix(err, "NOAUTH"), strings.Contains(msg, "Authentication required"):
		return fmt.Errorf("store.redis.password_env: Redis requires a password; name the environment variable that holds it: %w", err)
	case strings.Contains(msg, "without any password configured"):
		return fmt.Errorf("store.redis.password_env: Redis has no password set, but $%s gives one: %w", cfg.PasswordEnv, err)
	case strings.Contains(msg, "DB index is out of range"):
		return fmt.Errorf("store.redis.db: database %d does not exist on this server: %w", cfg.DB, err)
	case strings.Contains(msg, "cluster support disabled"):
		return fmt.Errorf("store.redis.cluster: %v is not a Redis Cluster node; set cluster: false: %w", cfg.Addrs, err)
	}
	if cfg.MasterName != "" {
		return explainSentinel(ctx, cfg, err)
	}
	return fmt.Errorf("store.redis.addrs: cannot reach Redis at %s: %w", strings.Join(cfg.Addrs, ", "), err)
}

func userName(cfg *Config) string {
	if cfg.Username == "" {
		return "default"
	}
	return cfg.Username
}

// explainSentinel asks each sentinel directly whether it knows the master,
// to tell a wrong master_name from unreachable sentinels.
func explainSentinel(ctx context.Context, cfg *Config, err error) error {
	reached := false
	for _, addr := range cfg.Addrs {
		sc := goredis.NewSentinelClient(&goredis.Options{Addr: addr, DialTimeout: cfg.options().DialTimeout, MaxRetries: -1})
		_, gerr := sc.GetMasterAddrByName(ctx, cfg.MasterName).Result()
		_ = sc.Close()
		switch {
		case gerr == nil:
			// This sentinel knows the master: the master itself failed.
			return fmt.Errorf("store.redis.addrs: sentinel %s names master %q, but it does not answer: %w", addr, cfg.MasterName, err)
		case errors.Is(gerr, goredis.Nil), strings.Contains(gerr.Error(), "No such master"):
			reached = true
		}
	}
	if reached {
		return fmt.Errorf("store.redis.master_name: no sentinel at %s knows a master named %q", strings.Join(cfg.Addrs, ", "), cfg.MasterName)
	}
	return fmt.Errorf("store.redis.addrs: cannot reach any sentinel at %s: %w", strings.Join(cfg.Addrs, ", "), err)
}
