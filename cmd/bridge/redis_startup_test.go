package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/store/redis/redistest"
)

// A wrong Redis setting stops `bridge serve` at once, non-zero, with an
// error that names the setting to fix.
func TestRedisServeRefusesBadStore(t *testing.T) {
	pwAddr, _ := redistest.StartServer(t, "--requirepass", "right-password")
	plainAddr, _ := redistest.StartServer(t)
	sentinelAddr := startRedisSentinel(t, plainAddr)
	closed := freeAddr(t)
	bridgeBinary(t) // built before the clock starts

	tests := []struct {
		name   string
		config string // a configuration file, when not empty
		args   []string
		env    []string
		want   string
	}{
		{
			name: "unreachable address",
			args: []string{"--store", "redis://127.0.0.1:1/0"},
			want: "store.redis.addrs: cannot reach Redis at 127.0.0.1:1",
		},
		{
			name: "nothing listening",
			args: []string{"--store", "redis://" + closed + "/0"},
			want: "store.redis.addrs: cannot reach Redis at " + closed,
		},
		{
			name:   "wrong password",
			config: "store:\n  driver: redis\n  redis:\n    addrs: [\"" + pwAddr + "\"]\n    password_env: ASKBRIDGE_TEST_REDIS_PW\n",
			env:    []string{"ASKBRIDGE_TEST_REDIS_PW=wrong-password"},
			want:   "store.redis.password_env: Redis refused the password in $ASKBRIDGE_TEST_REDIS_PW",
		},
		{
			name:   "password required",
			config: "store:\n  driver: redis\n  redis:\n    addrs: [\"" + pwAddr + "\"]\n",
			want:   "store.redis.password_env: Redis requires a password",
		},
		{
			name:   "password variable unset",
			config: "store:\n  driver: redis\n  redis:\n    addrs: [\"" + pwAddr + "\"]\n    password_env: ASKBRIDGE_TEST_REDIS_PW_UNSET\n",
			want:   "store.redis.password_env: environment variable ASKBRIDGE_TEST_REDIS_PW_UNSET is not set",
		},
		{
			name:   "unknown sentinel master",
			config: "store:\n  driver: redis\n  redis:\n    addrs: [\"" + sentinelAddr + "\"]\n    master_name: no-such-master\n",
			want:   `store.redis.master_name: no sentinel at ` + sentinelAddr + ` knows a master named "no-such-master"`,
		},
		{
			name: "database out of range",
			args: []string{"--store", "redis://" + plainAddr + "/99"},
			want: "store.redis.db: database 99 does not exist",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.config != "" {
				args = append(args, "--config", writeRedisConfig(t, tt.config))
			}
			start := time.Now()
			code, out := runServeFails(t, 20*time.Second, tt.env, args...)
			if code == 0 || !strings.Contains(out, tt.want) {
				t.Fatalf("bridge serve %v: exit %d, want non-zero and %q in:\n%s", args, code, tt.want, out)
			}
			if strings.Contains(out, "askbridge is listening") {
				t.Fatalf("bridge serve listened before refusing:\n%s", out)
			}
			t.Logf("exit %d after %s: %s", code, time.Since(start).Round(time.Millisecond), lastLine(out))
		})
	}
}

// startRedisSentinel starts a private sentinel watching master (as
// "mymaster") and returns its address.
func startRedisSentinel(t *testing.T, master string) string {
	t.Helper()
	host, port, _ := strings.Cut(master, ":")
	conf := filepath.Join(t.TempDir(), "sentinel.conf")
	body := "sentinel monitor mymaster " + host + " " + port + " 1\nsentinel down-after-milliseconds mymaster 5000\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return redistest.Start(t, conf, "--sentinel").Addr
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
