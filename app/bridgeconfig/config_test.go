package bridgeconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// yamlKeys lists the dotted key paths a config type accepts.
func yamlKeys(t reflect.Type, prefix string, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeOf(time.Time{}) {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		parts := strings.Split(f.Tag.Get("yaml"), ",")
		if parts[0] == "-" || !f.IsExported() {
			continue
		}
		if slices.Contains(parts[1:], "inline") {
			yamlKeys(f.Type, prefix, out)
			continue
		}
		key := parts[0]
		if key == "" {
			continue
		}
		out[prefix+key] = true
		if f.Type.Kind() != reflect.Map {
			yamlKeys(f.Type, prefix+key+".", out)
		}
	}
}

// nodeKeys lists the dotted key paths present in a YAML document.
func nodeKeys(n *yaml.Node, prefix string, out map[string]bool) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			nodeKeys(c, prefix, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := prefix + n.Content[i].Value
			out[k] = true
			nodeKeys(n.Content[i+1], k+".", out)
		}
	}
}

// config.example.yaml documents every key and passes check-config.
func TestExampleConfigHasEveryKey(t *testing.T) {
	data, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	nodeKeys(&doc, "", have)
	want := map[string]bool{}
	yamlKeys(reflect.TypeOf(Config{}), "", want)
	for k := range want {
		if !have[k] && !strings.HasPrefix(k, "routes.") {
			t.Errorf("config.example.yaml lacks %s", k)
		}
	}
	for _, env := range []string{"ASKBRIDGE_AGENT_KEY_CLAUDE", "ASKBRIDGE_RESPONDER_KEY_ANA", "ASKBRIDGE_TELEGRAM_TOKEN", "ASKBRIDGE_SLACK_BOT_TOKEN", "ASKBRIDGE_SLACK_APP_TOKEN", "ASKBRIDGE_DISCORD_TOKEN", "ASKBRIDGE_CALLBACK_SECRET_CLAUDE"} {
		t.Setenv(env, "test-value-of-"+env)
	}
	cfg, err := Load("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Finish(); err != nil {
		t.Fatalf("the example does not pass check-config: %v", err)
	}
}

func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "askbridge.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
