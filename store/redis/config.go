package redis

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/askbridge/askbridge/broker"
)

// Defaults of Config.
const (
	DefaultKeyPrefix = "askbridge:"
	DefaultRetention = 7 * 24 * time.Hour
)

// Config says how to reach Redis and how to lay out keys in it. One Config
// serves a single server (one address), Sentinel (master_name set, addrs are
// the sentinels) and Cluster (cluster: true, addrs are seed nodes).
type Config struct {
	// Addrs are host:port addresses: the server, the sentinels or cluster
	// seed nodes.
	Addrs []string `yaml:"addrs"`
	// MasterName is the Sentinel master name; set it to use Sentinel.
	MasterName string `yaml:"master_name"`
	// Cluster selects Redis Cluster.
	Cluster bool `yaml:"cluster"`
	// DB is the database number (not with Cluster).
	DB int `yaml:"db"`
	// Username is the ACL user name, if any.
	Username string `yaml:"username"`
	// PasswordEnv names the environment variable that holds the password.
	PasswordEnv string `yaml:"password_env"`
	// TLS connects with TLS.
	TLS bool `yaml:"tls"`
	// KeyPrefix starts every key (default "askbridge:").
	KeyPrefix string `yaml:"key_prefix"`
	// Retention is how long resolved questions are kept (default 7 days).
	Retention time.Duration `yaml:"retention"`
}

func (c *Config) setDefaults() {
	if c.KeyPrefix == "" {
		c.KeyPrefix = DefaultKeyPrefix
	}
	if c.Retention == 0 {
		c.Retention = DefaultRetention
	}
}

// Validate fills in defaults and checks the settings; errors name the
// setting as it is written in the configuration file.
func (c *Config) Validate() error {
	c.setDefaults()
	if len(c.Addrs) == 0 {
		return errors.New("store.redis.addrs: at least one host:port is required")
	}
	for i, a := range c.Addrs {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return fmt.Errorf("store.redis.addrs[%d]: %q is not host:port", i, a)
		}
	}
	if c.MasterName != "" && c.Cluster {
		return errors.New("store.redis.master_name: Sentinel and cluster: true cannot be combined")
	}
	if len(c.Addrs) > 1 && c.MasterName == "" && !c.Cluster {
		return errors.New("store.redis.addrs: several addresses need cluster: true (Cluster) or master_name (Sentinel)")
	}
	if c.DB < 0 {
		return fmt.Errorf("store.redis.db: %d is negative", c.DB)
	}
	if c.Cluster && c.DB != 0 {
		return errors.New("store.redis.db: Redis Cluster has only database 0")
	}
	if c.PasswordEnv != "" {
		if _, ok := os.LookupEnv(c.PasswordEnv); !ok {
			return fmt.Errorf("store.redis.password_env: environment variable %s is not set", c.PasswordEnv)
		}
	}
	if strings.ContainsAny(c.KeyPrefix, "{}") {
		return fmt.Errorf("store.redis.key_prefix: %q must not contain { or } (they are used as hash tags)", c.KeyPrefix)
	}
	if c.Retention < broker.MinRetention {
		return fmt.Errorf("store.redis.retention: %s is shorter than one minute", c.Retention)
	}
	return nil
}

// options builds the go-redis options of c; c must be valid.
func (c *Config) options() *goredis.UniversalOptions {
	o := &goredis.UniversalOptions{
		Addrs:         c.Addrs,
		MasterName:    c.MasterName,
		IsClusterMode: c.Cluster,
		DB:            c.DB,
		Username:      c.Username,
		ClientName:    "askbridge",
		DialTimeout:   2 * time.Second,
		ReadTimeout:   3 * time.Second,
		WriteTimeout:  3 * time.Second,
		// A read that fails is sent once more; a script that writes
		// never is, as it may have run already (script.go).
		MaxRetries:               1,
		DialerRetries:            1,
		PoolTimeout:              4 * time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	if c.PasswordEnv != "" {
		o.Password = os.Getenv(c.PasswordEnv)
	}
	if c.TLS {
		o.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return o
}

// ParseURL turns "redis://[user@]host:port[/db]" (or "rediss://" for TLS)
// into a Config. A password in the URL is refused: name an environment
// variable with ?password_env=NAME instead.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("store url: %w", err)
	}
	var c Config
	switch u.Scheme {
	case "redis":
	case "rediss":
		c.TLS = true
	default:
		return Config{}, fmt.Errorf("store url %q: scheme must be redis:// or rediss://", raw)
	}
	if u.Host == "" {
		return Config{}, fmt.Errorf("store url %q: missing host:port", raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return Config{}, fmt.Errorf("store url: put no password in the URL; use ?password_env=NAME")
		}
		c.Username = u.User.Username()
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "6379")
	}
	c.Addrs = []string{host}
	if p := strings.Trim(u.Path, "/"); p != "" {
		db, err := strconv.Atoi(p)
		if err != nil {
			return Config{}, fmt.Errorf("store url %q: database %q is not a number", raw, p)
		}
		c.DB = db
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "password_env", "key_prefix", "master_name", "cluster", "retention":
		default:
			return Config{}, fmt.Errorf("store url %q: unknown parameter %q", raw, k)
		}
	}
	c.PasswordEnv = q.Get("password_env")
	c.KeyPrefix = q.Get("key_prefix")
	c.MasterName = q.Get("master_name")
	if v := q.Get("cluster"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("store url %q: cluster=%q is not true or false", raw, v)
		}
		c.Cluster = b
	}
	if v := q.Get("retention"); v != "" {
		d, err := broker.ParseDuration(v)
		if err != nil {
			return Config{}, fmt.Errorf("store url %q: retention=%w", raw, err)
		}
		c.Retention = d
	}
	return c, nil
}
