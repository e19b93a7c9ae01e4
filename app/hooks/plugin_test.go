package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The Claude Code plugin in the repository (plugin/, listed by
// .claude-plugin/marketplace.json) installs the same hooks as `bridge
// hook install claude --command "bridge hook claude"`, and the channel
// server as `bridge channel`.
func TestPluginMatchesInstall(t *testing.T) {
	root := filepath.Join("..", "..")
	readJSON := func(path string, v any) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var market struct {
		Name    string                `json:"name"`
		Owner   struct{ Name string } `json:"owner"`
		Plugins []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"plugins"`
	}
	readJSON(".claude-plugin/marketplace.json", &market)
	if market.Name == "" || market.Owner.Name == "" || len(market.Plugins) != 1 || market.Plugins[0].Name != "askbridge" {
		t.Fatalf("marketplace.json = %+v, want one plugin askbridge", market)
	}
	dir := filepath.Clean(market.Plugins[0].Source)
	var plugin struct {
		Name       string `json:"name"`
		Hooks      string `json:"hooks"`
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(filepath.Join(dir, ".claude-plugin", "plugin.json"), &plugin)
	if plugin.Name != "askbridge" {
		t.Fatalf("plugin.json names %q", plugin.Name)
	}
	if s := plugin.MCPServers["askbridge"]; s.Command != "bridge" || !reflect.DeepEqual(s.Args, []string{"channel"}) {
		t.Fatalf("plugin.json's channel server = %+v, want bridge channel", s)
	}
	var shipped map[string]any
	readJSON(filepath.Join(dir, plugin.Hooks), &shipped)

	project := t.TempDir()
	t.Chdir(project)
	var out, errb bytes.Buffer
	if code := runHookInstall("claude", true, false, "bridge hook claude", "", &out, &errb, false); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(filepath.Join(project, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var installed map[string]any
	if err := json.Unmarshal(data, &installed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shipped, installed) {
		t.Fatalf("the plugin's hooks differ from what install writes:\nplugin  %v\ninstall %v", shipped, installed)
	}
}
