package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestKeysBeyondLoopback: beyond loopback short keys are startup errors;
// everywhere, two entries holding one key are. Errors name the entries and
// variables, never the key.
func TestKeysBeyondLoopback(t *testing.T) {
	const long, long2, short = "agent-key-0123456789", "other-key-0123456789", "short-key"
	t.Setenv("ASKBRIDGE_TEST_LONG", long)
	t.Setenv("ASKBRIDGE_TEST_LONG2", long2)
	t.Setenv("ASKBRIDGE_TEST_SAME", long)
	t.Setenv("ASKBRIDGE_TEST_SHORT", short)
	t.Setenv("ASKBRIDGE_TEST_SHORT2", short+"2")
	agents := func(envs ...string) string {
		s := "agents:\n"
		for i, e := range envs {
			s += "  - name: a" + string(rune('0'+i)) + "\n    key_env: " + e + "\n"
		}
		return s
	}
	const beyond = "listen: 0.0.0.0:8377\n"
	const proxied = "server:\n  public_url: https://bridge.example.com\n"
	tests := []struct {
		name, body, want string
	}{
		{"long keys beyond loopback", beyond + agents("ASKBRIDGE_TEST_LONG", "ASKBRIDGE_TEST_LONG2"), ""},
		{"short key on loopback", agents("ASKBRIDGE_TEST_SHORT"), ""},
		{"short agent key beyond loopback", beyond + agents("ASKBRIDGE_TEST_LONG", "ASKBRIDGE_TEST_SHORT"),
			"agents[1].key_env: the key in ASKBRIDGE_TEST_SHORT has 9 characters; a bridge reachable beyond loopback needs keys of at least 16"},
		{"short key behind a proxy", proxied + agents("ASKBRIDGE_TEST_SHORT"), "agents[0].key_env: the key in ASKBRIDGE_TEST_SHORT has 9 characters"},
		{"short responder key", beyond + agents("ASKBRIDGE_TEST_LONG") + "responders:\n  - name: ana\n    key_env: ASKBRIDGE_TEST_SHORT2\n",
			"responders[0].key_env: the key in ASKBRIDGE_TEST_SHORT2 has 10 characters"},
		{"two agents, one key", beyond + agents("ASKBRIDGE_TEST_LONG", "ASKBRIDGE_TEST_SAME"),
			"agents[1].key_env: the key in ASKBRIDGE_TEST_SAME is the same as the key of agents[0].key_env (ASKBRIDGE_TEST_LONG)"},
		{"two agents, one variable, on loopback", agents("ASKBRIDGE_TEST_SHORT", "ASKBRIDGE_TEST_SHORT"), "agents[1].key_env: the key in ASKBRIDGE_TEST_SHORT is the same"},
		{"agent and responder, one key", agents("ASKBRIDGE_TEST_LONG") + "responders:\n  - name: ana\n    key_env: ASKBRIDGE_TEST_SAME\n",
			"responders[0].key_env: the key in ASKBRIDGE_TEST_SAME is the same as the key of agents[0].key_env"},
		{"metrics listener beyond loopback needs a key", agents("ASKBRIDGE_TEST_LONG") + "metrics:\n  listen: 0.0.0.0:9377\n",
			"metrics.listen: 0.0.0.0:9377 is beyond loopback, so set metrics.key_env too"},
		{"metrics listener on loopback", beyond + agents("ASKBRIDGE_TEST_LONG") + "metrics:\n  listen: 127.0.0.1:9377\n", ""},
		{"short metrics key beyond loopback", beyond + agents("ASKBRIDGE_TEST_LONG") + "metrics:\n  key_env: ASKBRIDGE_TEST_SHORT\n",
			"metrics.key_env: the key in ASKBRIDGE_TEST_SHORT has 9 characters"},
		{"unset metrics key", "metrics:\n  key_env: ASKBRIDGE_TEST_UNSET_METRICS\n", "metrics.key_env: environment variable ASKBRIDGE_TEST_UNSET_METRICS is not set"},
		{"metrics listen not host:port", "metrics:\n  listen: nowhere\n", `metrics.listen: "nowhere" is not host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadYAML(t, tt.body)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want …%s…", err, tt.want)
			case err != nil && (strings.Contains(err.Error(), long) || strings.Contains(err.Error(), short)):
				t.Fatalf("the error shows a key: %v", err)
			}
		})
	}
}

// TestMetricsBeyondLoopback runs bridge serve reachable beyond loopback
// (through a proxy's public_url): /metrics is not served on the main
// listener without a key; with metrics.listen it is served there only,
// behind its key; /readyz stays open.
func TestMetricsBeyondLoopback(t *testing.T) {
	const agentKey, metricsKey = "agent-key-0123456789", "metrics-key-0123456789"
	env := []string{"ASKBRIDGE_TEST_AGENT=" + agentKey, "ASKBRIDGE_TEST_METRICS=" + metricsKey}
	base := "agents:\n  - name: a\n    key_env: ASKBRIDGE_TEST_AGENT\nserver:\n  public_url: https://bridge.example.com\n"
	fetch := func(url, key string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	t.Run("neither key nor listener", func(t *testing.T) {
		addr := freeAddr(t)
		startServe(t, addr, env, "--data-dir", t.TempDir(), "--config", writeConfig(t, t.TempDir(), base))
		status, body := fetch("http://"+addr+"/metrics", "")
		if status != 404 || !strings.Contains(body, "set metrics.key_env (a bearer key) or metrics.listen") {
			t.Fatalf("got %d %q", status, body)
		}
	})
	t.Run("key", func(t *testing.T) {
		addr := freeAddr(t)
		startServe(t, addr, env, "--data-dir", t.TempDir(), "--config", writeConfig(t, t.TempDir(), base+"metrics:\n  key_env: ASKBRIDGE_TEST_METRICS\n"))
		if status, _ := fetch("http://"+addr+"/metrics", ""); status != 401 {
			t.Fatalf("without the key: %d, want 401", status)
		}
		if status, body := fetch("http://"+addr+"/metrics", metricsKey); status != 200 || !strings.Contains(body, "askbridge_questions_asked_total") {
			t.Fatalf("with the key: %d %.100q", status, body)
		}
	})
	t.Run("own listener", func(t *testing.T) {
		addr, maddr := freeAddr(t), freeAddr(t)
		startServe(t, addr, env, "--data-dir", t.TempDir(), "--config", writeConfig(t, t.TempDir(), base+"metrics:\n  listen: "+maddr+"\n"))
		if status, body := fetch("http://"+addr+"/metrics", ""); status != 404 || !strings.Contains(body, "metrics.listen") {
			t.Fatalf("main listener: %d %q, want 404 naming metrics.listen", status, body)
		}
		if status, body := fetch("http://"+maddr+"/metrics", ""); status != 200 || !strings.Contains(body, "askbridge_questions_asked_total") {
			t.Fatalf("metrics listener: %d %.100q", status, body)
		}
		if status, _ := fetch("http://"+maddr+"/v1/questions", agentKey); status != 404 {
			t.Fatalf("the metrics listener serves the API: %d", status)
		}
	})
}
