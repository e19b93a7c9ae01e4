package redis_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

func TestConfigValidate(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_REDIS_PW", "x")
	cases := []struct {
		name string
		cfg  redisstore.Config
		want string // substring of the error; "" = valid
	}{
		{"Single", redisstore.Config{Addrs: []string{"127.0.0.1:6379"}}, ""},
		{"Sentinel", redisstore.Config{Addrs: []string{"a:26379", "b:26379"}, MasterName: "mymaster"}, ""},
		{"Cluster", redisstore.Config{Addrs: []string{"a:7000", "b:7000"}, Cluster: true}, ""},
		{"PasswordEnvSet", redisstore.Config{Addrs: []string{"a:1"}, PasswordEnv: "ASKBRIDGE_TEST_REDIS_PW"}, ""},
		{"NoAddrs", redisstore.Config{}, "store.redis.addrs"},
		{"AddrWithoutPort", redisstore.Config{Addrs: []string{"localhost"}}, "store.redis.addrs[0]"},
		{"SeveralAddrsNoMode", redisstore.Config{Addrs: []string{"a:1", "b:1"}}, "cluster: true"},
		{"SentinelAndCluster", redisstore.Config{Addrs: []string{"a:1"}, MasterName: "m", Cluster: true}, "store.redis.master_name"},
		{"NegativeDB", redisstore.Config{Addrs: []string{"a:1"}, DB: -1}, "store.redis.db"},
		{"ClusterDB", redisstore.Config{Addrs: []string{"a:1"}, Cluster: true, DB: 2}, "store.redis.db"},
		{"PasswordEnvUnset", redisstore.Config{Addrs: []string{"a:1"}, PasswordEnv: "ASKBRIDGE_TEST_NO_SUCH_VAR"}, "store.redis.password_env"},
		{"PrefixWithBrace", redisstore.Config{Addrs: []string{"a:1"}, KeyPrefix: "ab{c}:"}, "store.redis.key_prefix"},
		{"ShortRetention", redisstore.Config{Addrs: []string{"a:1"}, Retention: time.Second}, "store.redis.retention"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if c.cfg.KeyPrefix == "" || c.cfg.Retention == 0 {
					t.Fatalf("Validate left defaults unset: %+v", c.cfg)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %v, want an error naming %q", err, c.want)
			}
		})
	}
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		url  string
		want redisstore.Config
		err  string
	}{
		{"redis://127.0.0.1:6379/2", redisstore.Config{Addrs: []string{"127.0.0.1:6379"}, DB: 2}, ""},
		{"redis://example.com", redisstore.Config{Addrs: []string{"example.com:6379"}}, ""},
		{"rediss://bob@h:1/0?password_env=PW&key_prefix=x:", redisstore.Config{Addrs: []string{"h:1"}, TLS: true, Username: "bob", PasswordEnv: "PW", KeyPrefix: "x:"}, ""},
		{"redis://h:1?cluster=true&retention=24h", redisstore.Config{Addrs: []string{"h:1"}, Cluster: true, Retention: 24 * time.Hour}, ""},
		{"redis://u:secret@h:1", redisstore.Config{}, "no password in the URL"},
		{"http://h:1", redisstore.Config{}, "redis://"},
		{"redis://h:1/x", redisstore.Config{}, "not a number"},
		{"redis://h:1?colour=red", redisstore.Config{}, "unknown parameter"},
		{"redis:///0", redisstore.Config{}, "missing host"},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			got, err := redisstore.ParseURL(c.url)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseURL = %+v, %v; want error %q", got, err, c.err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Fatalf("error repeats the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseURL: %v", err)
			}
			if strings.Join(got.Addrs, ",") != strings.Join(c.want.Addrs, ",") || got.DB != c.want.DB || got.TLS != c.want.TLS ||
				got.Username != c.want.Username || got.PasswordEnv != c.want.PasswordEnv || got.KeyPrefix != c.want.KeyPrefix ||
				got.Cluster != c.want.Cluster || got.Retention != c.want.Retention {
				t.Fatalf("ParseURL = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestOpenBadConfig checks that Open refuses, quickly and naming the
// setting, every way of pointing at the wrong Redis.
func TestOpenBadConfig(t *testing.T) {
	pwAddr, _ := redistest.StartServer(t, "--requirepass", "right-password")
	plainAddr, _ := redistest.StartServer(t)
	sentinelAddr := startSentinel(t, plainAddr)
	closedPort := redistest.FreePort(t)
	t.Setenv("ASKBRIDGE_TEST_PW_WRONG", "wrong-password")
	t.Setenv("ASKBRIDGE_TEST_PW_RIGHT", "right-password")

	cases := []struct {
		name string
		cfg  redisstore.Config
		want string // substring of the error; "" = opens
	}{
		{"WrongAddress", redisstore.Config{Addrs: []string{"127.0.0.1:" + strconv.Itoa(closedPort)}}, "store.redis.addrs: cannot reach Redis"},
		{"WrongPassword", redisstore.Config{Addrs: []string{pwAddr}, PasswordEnv: "ASKBRIDGE_TEST_PW_WRONG"}, "store.redis.password_env: Redis refused the password in $ASKBRIDGE_TEST_PW_WRONG"},
		{"MissingPassword", redisstore.Config{Addrs: []string{pwAddr}}, "store.redis.password_env: Redis requires a password"},
		{"RightPassword", redisstore.Config{Addrs: []string{pwAddr}, PasswordEnv: "ASKBRIDGE_TEST_PW_RIGHT"}, ""},
		{"DBOutOfRange", redisstore.Config{Addrs: []string{plainAddr}, DB: 99}, "store.redis.db"},
		{"NotACluster", redisstore.Config{Addrs: []string{plainAddr}, Cluster: true}, "store.redis.cluster"},
		{"SentinelUnknownMaster", redisstore.Config{Addrs: []string{sentinelAddr}, MasterName: "no-such-master"}, `store.redis.master_name: no sentinel at ` + sentinelAddr + ` knows a master named "no-such-master"`},
		{"SentinelUnreachable", redisstore.Config{Addrs: []string{"127.0.0.1:" + strconv.Itoa(closedPort)}, MasterName: "mymaster"}, "store.redis.addrs: cannot reach any sentinel"},
		{"SentinelKnownMaster", redisstore.Config{Addrs: []string{sentinelAddr}, MasterName: "mymaster"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.KeyPrefix = "askbridge-test-open:"
			s, err := redisstore.Open(context.Background(), c.cfg, quiet)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer s.Close()
				ctx := context.Background()
				q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
				if _, _, err := s.Create(ctx, q, nil); err != nil {
					t.Fatalf("Create: %v", err)
				}
				if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if got, err := s.Get(ctx, q.ID); err != nil || got.Status != broker.StatusCancelled {
					t.Fatalf("Get = %+v, %v; want it cancelled", got, err)
				}
				return
			}
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open succeeded, want an error naming %q", c.want)
			}
			t.Logf("Open: %v", err)
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open error = %q, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "wrong-password") || strings.Contains(err.Error(), "right-password") {
				t.Fatalf("error shows the password: %v", err)
			}
		})
	}
}

// startSentinel starts a private sentinel monitoring the server at
// master as "mymaster".
func startSentinel(t *testing.T, master string) string {
	t.Helper()
	host, port, _ := strings.Cut(master, ":")
	dir := t.TempDir()
	conf := dir + "/sentinel.conf"
	body := "sentinel monitor mymaster " + host + " " + port + " 1\nsentinel down-after-milliseconds mymaster 5000\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s := redistest.Start(t, conf, "--sentinel")
	return s.Addr
}

func TestConfigYAML(t *testing.T) {
	src := `
addrs: ["10.0.0.5:26379", "10.0.0.6:26379"]
master_name: mymaster
db: 2
username: askbridge
password_env: ASKBRIDGE_REDIS_PASSWORD
tls: true
key_prefix: "team-a:"
retention: 72h
`
	var c redisstore.Config
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(c.Addrs) != 2 || c.MasterName != "mymaster" || c.DB != 2 || c.Username != "askbridge" ||
		c.PasswordEnv != "ASKBRIDGE_REDIS_PASSWORD" || !c.TLS || c.KeyPrefix != "team-a:" || c.Retention != 72*time.Hour {
		t.Fatalf("decoded %+v", c)
	}
	dec = yaml.NewDecoder(strings.NewReader("adrs: [\"a:1\"]\n"))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err == nil || !strings.Contains(err.Error(), "adrs") {
		t.Fatalf("a misspelt key decoded without an error naming it: %v", err)
	}
}

func TestOpenURL(t *testing.T) {
	addr, _ := redistest.StartServer(t)
	s, err := redisstore.OpenURL(context.Background(), "redis://"+addr+"/3?key_prefix=url-test:", quiet)
	if err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	defer s.Close()
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(context.Background(), q, nil); err != nil {
		t.Fatalf("Create: %v", err)
	}
	keys, err := s.Client().Keys(context.Background(), "url-test:*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("keys under the URL's prefix in db 3: %v, %v", keys, err)
	}
	if _, err := redisstore.OpenURL(context.Background(), "redis://"+addr+"/x", quiet); err == nil {
		t.Fatal("OpenURL with a bad database number succeeded")
	}
}
