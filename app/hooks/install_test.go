package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// hookCLI runs `bridge hook ARGS…` in this process.
func hookCLI(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	root := &cobra.Command{Use: "bridge", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(NewCmd())
	cmdline.WrapRunE(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdline.UsageErr("%v", err) })
	root.SetArgs(append([]string{"hook"}, args...))
	root.SetIn(strings.NewReader(""))
	root.SetOut(&out)
	root.SetErr(&errb)
	cmd, err := root.ExecuteC()
	name := "bridge"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	code = cmdline.Report(err, name, &errb)
	return out.String(), errb.String(), code
}

const (
	claudeCmd = "bridge hook claude"
	codexCmd  = "bridge hook codex"
)

// A fresh install writes exactly these hooks.
const freshClaudeSettings = `{
  "hooks": {
    "PermissionRequest": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "bridge hook claude",
            "timeout": 1800,
            "statusMessage": "Waiting for an answer in chat (askbridge)"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "AskUserQuestion",
        "hooks": [
          {
            "type": "command",
            "command": "bridge hook claude",
            "timeout": 1800,
            "statusMessage": "Waiting for an answer in chat (askbridge)"
          }
        ]
      }
    ],
    "Elicitation": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "bridge hook claude",
            "timeout": 1800,
            "statusMessage": "Waiting for an answer in chat (askbridge)"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "bridge hook claude",
            "timeout": 30,
            "async": true
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "bridge hook claude",
            "timeout": 30,
            "async": true
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "bridge hook claude",
            "timeout": 30,
            "async": true
          }
        ]
      }
    ]
  }
}
`

// Install adds the hooks to settings files with and without hooks,
// keeping every other setting and the order of keys; a second install
// changes nothing; uninstall gives back the file as it was.
func TestHookInstallRoundTrip(t *testing.T) {
	tests := []struct {
		name, agent string
		args        []string
		file        string // relative to the home or project directory
		before      string // "" for no file
	}{
		{"claude user settings without a file", "claude", nil, ".claude/settings.json", ""},
		{"claude user settings without hooks", "claude", nil, ".claude/settings.json", `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ],
    "deny": []
  },
  "env": {
    "GOFLAGS": "-mod=mod",
    "NOTE": "<a & b>"
  }
}
`},
		{"claude project settings with other hooks", "claude", []string{"--project"}, ".claude/settings.json", `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"
          }
        ]
      }
    ],
    "PermissionRequest": [
      {
        "matcher": "mcp__memory__.*",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/approve-memory"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Read"
    ]
  }
}
`},
		{"claude local settings", "claude", []string{"--local"}, ".claude/settings.local.json", `{
  "permissions": {
    "allow": [
      "Bash(make release:*)"
    ]
  }
}
`},
		{"codex user hooks with a Stop hook", "codex", nil, ".codex/hooks.json", `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.codex/hooks/stop.py",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`},
		{"codex project hooks without a file", "codex", []string{"--project"}, ".codex/hooks.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("CODEX_HOME", "")
			t.Chdir(project)
			base := home
			if len(tt.args) > 0 {
				base = project
			}
			path := filepath.Join(base, tt.file)
			if tt.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			cmd := "bridge hook " + tt.agent
			args := append([]string{"install", tt.agent, "--command", cmd}, tt.args...)
			out, errOut, code := hookCLI(args...)
			if code != 0 || !strings.Contains(out, path+": added PermissionRequest hook (matcher \"*\", timeout 1800 s): "+cmd) {
				t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
			}
			installed := readFile(t, path)
			checkInstalled(t, installed, tt.before, tt.agent, cmd)
			if tt.agent == "claude" && tt.before == "" && installed != freshClaudeSettings {
				t.Fatalf("fresh settings:\n%s", installed)
			}
			if tt.before != "" {
				if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
					t.Fatalf("mode changed to %v", st.Mode().Perm())
				}
			}

			out, _, code = hookCLI(args...)
			if code != 0 || !strings.Contains(out, "already there; not changed") || !strings.Contains(out, "nothing changed") || readFile(t, path) != installed {
				t.Fatalf("second install: exit %d\n%s", code, out)
			}

			out, errOut, code = hookCLI(append([]string{"uninstall", tt.agent, "--command", cmd}, tt.args...)...)
			if code != 0 || !strings.Contains(out, "removed PermissionRequest hook: "+cmd) {
				t.Fatalf("uninstall: exit %d\n%s%s", code, out, errOut)
			}
			after := readFile(t, path)
			want := tt.before
			if want == "" {
				want = "{}\n"
			}
			if after != want {
				t.Fatalf("after uninstall:\n%s\nwant the file as it was:\n%s", after, want)
			}
		})
	}
}

// checkInstalled checks that the installed file holds every setting of
// before, in the same order, plus the bridge's hooks after the others.
func checkInstalled(t *testing.T, installed, before, agent, cmd string) {
	t.Helper()
	got, err := parseObject([]byte(installed), "installed")
	if err != nil {
		t.Fatalf("installed file: %v\n%s", err, installed)
	}
	if before != "" {
		old, _ := parseObject([]byte(before), "before")
		for i, m := range old {
			if got[i].key != m.key {
				t.Fatalf("key %d is %q, was %q:\n%s", i, got[i].key, m.key, installed)
			}
			if m.key != "hooks" && !bytes.Equal(compactRaw(got[i].value), compactRaw(m.value)) {
				t.Fatalf("%s changed: %s, was %s", m.key, got[i].value, m.value)
			}
		}
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
				Async         bool
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(installed), &s); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		matcher string
		timeout int
		async   bool
	}
	want := map[string]entry{"PermissionRequest": {"*", hookInstallTimeout, false}}
	if agent == "claude" {
		want["PreToolUse"] = entry{"AskUserQuestion", hookInstallTimeout, false}
		want["Elicitation"] = entry{"*", hookInstallTimeout, false}
		want["PostToolUse"] = entry{"*", hookReportTimeout, true}
		want["PostToolUseFailure"] = entry{"*", hookReportTimeout, true}
		want["Stop"] = entry{"", hookReportTimeout, true}
	}
	for event, e := range want {
		groups := s.Hooks[event]
		last := groups[len(groups)-1]
		if last.Matcher != e.matcher || len(last.Hooks) != 1 || last.Hooks[0].Command != cmd || last.Hooks[0].Timeout != e.timeout ||
			last.Hooks[0].Async != e.async || last.Hooks[0].Type != "command" {
			t.Fatalf("%s: last group %+v", event, last)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A file the agent could not read either is refused with its name and
// the place of the problem, and left byte for byte as it was.
func TestHookInstallRefusesBadSettings(t *testing.T) {
	tests := []struct {
		name, before, want string
	}{
		{"missing brace", "{\n  \"model\": \"opus\",\n  \"hooks\": {\n}\n", "line 5, column 1: unexpected end of JSON input"},
		{"trailing comma", "{\n  \"model\": \"opus\",\n}\n", "line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{"comment", "{\n  // my settings\n  \"model\": \"opus\"\n}\n", "line 2, column 3: invalid character '/'"},
		{"not an object", "[1, 2]\n", "the file is an array, not an object"},
		{"hooks not an object", `{"hooks": ["bridge"]}`, `"hooks" is an array, not an object`},
		{"event not an array", `{"hooks": {"PermissionRequest": {"matcher": "*"}}}`, "hooks.PermissionRequest is an object, not an array"},
		{"group not an object", `{"hooks": {"PreToolUse": ["Bash"]}}`, "hooks.PreToolUse[0] is a string, not an object"},
		{"duplicate key", `{"model": "opus", "model": "sonnet"}`, `the file has the key "model" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			path := filepath.Join(home, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, verb := range []string{"install", "uninstall"} {
				out, errOut, code := hookCLI(verb, "claude", "--command", claudeCmd)
				want := "bridge hook " + verb + ": " + path + ": " + tt.want
				if code != cmdline.ExitBadInput || !strings.Contains(errOut, want) || !strings.Contains(errOut, "the file was not changed") {
					t.Fatalf("%s: exit %d, stdout %q, stderr %q; want %q", verb, code, out, errOut, want)
				}
				if readFile(t, path) != tt.before {
					t.Fatalf("%s changed the file", verb)
				}
				if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
					t.Fatalf("%s left files behind: %v", verb, entries)
				}
			}
		})
	}
}

// Uninstall removes only the bridge's handler from a group it shares with
// another, and touches no handler with another command.
func TestHookUninstallRemovesOnlyItsHandler(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := filepath.Join(home, ".codex", "hooks.json")
	t.Setenv("CODEX_HOME", filepath.Dir(path))
	before := `{"hooks":{"PermissionRequest":[{"matcher":"*","hooks":[` +
		`{"type":"command","command":"notify-send approval"},` +
		`{"type":"command","command":"bridge hook codex","timeout":1800}]},` +
		`{"matcher":"Bash","hooks":[{"type":"command","command":"bridge hook codex --route ops"}]}]}}`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := hookCLI("uninstall", "codex", "--command", codexCmd)
	if code != 0 || strings.TrimSpace(out) != path+": removed PermissionRequest hook: bridge hook codex" {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	want := `{"hooks":{"PermissionRequest":[{"matcher":"*","hooks":[{"type":"command","command":"notify-send approval"}]},` +
		`{"matcher":"Bash","hooks":[{"type":"command","command":"bridge hook codex --route ops"}]}]}}`
	if got := compactRaw([]byte(readFile(t, path))); string(got) != want {
		t.Fatalf("after uninstall:\n%s\nwant\n%s", got, want)
	}
	out, _, code = hookCLI("uninstall", "codex", "--command", codexCmd)
	if code != 0 || !strings.Contains(out, `no hook with the command "bridge hook codex"; nothing changed`) {
		t.Fatalf("second uninstall: exit %d %s", code, out)
	}
}

// Bad command lines say what would work.
func TestHookInstallUsage(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"install"}, "missing agent (claude or codex) (usage: bridge hook install claude|codex [flags])"},
		{[]string{"install", "cursor"}, "name the agent"},
		{[]string{"install", "codex", "--local"}, "codex has no local scope; use --project or no flag"},
		{[]string{"install", "claude", "--project", "--local"}, "give --project or --local, not both"},
		{[]string{"uninstall", "claude", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := hookCLI(tt.args...)
			if code != cmdline.ExitBadInput || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errOut, tt.want)
			}
		})
	}
}

// Install refuses the temporary binary of go run (or go test), whose path
// would be gone when the agent runs the hook, and says what to do; with
// --command it writes the command named.
func TestHookInstallRefusesGoRunBinary(t *testing.T) {
	home, tmp := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	cache := filepath.Join(tmp, "cache")
	t.Setenv("GOCACHE", cache)
	settings := filepath.Join(home, ".claude", "settings.json")
	tests := []struct {
		name, exe string
		refused   bool
	}{
		{"go run temporary directory", filepath.Join(tmp, "go-build2973451/b001/exe/bridge"), true},
		{"go build cache", filepath.Join(cache, "8f/8f0a2b-d/bridge"), true},
		{"installed", filepath.Join(tmp, "bin/bridge"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.RemoveAll(filepath.Dir(settings))
			var out, errb bytes.Buffer
			code := runHookInstall("claude", false, false, "", tt.exe, &out, &errb, false)
			_, statErr := os.Stat(settings)
			if !tt.refused {
				if code != 0 || statErr != nil || !strings.Contains(readFile(t, settings), tt.exe+" hook claude") {
					t.Fatalf("exit %d, stderr %q", code, errb.String())
				}
				return
			}
			want := tt.exe + " is a temporary binary of go run or go test, deleted when it exits; install the bridge first (go install ./cmd/bridge, or go build -o bridge ./cmd/bridge)"
			if code != cmdline.ExitBadInput || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "--command") || statErr == nil {
				t.Fatalf("exit %d, stdout %q, stderr %q; want a refusal and no settings file", code, out.String(), errb.String())
			}
			code = runHookInstall("claude", false, false, "bridge hook claude --route ops", tt.exe, &out, &errb, false)
			if code != 0 || !strings.Contains(readFile(t, settings), `"command": "bridge hook claude --route ops"`) {
				t.Fatalf("--command: exit %d, stderr %q", code, errb.String())
			}
		})
	}
	// Through the command line, in this test binary when go test built it
	// in a go-build directory: refused without --command.
	if !strings.Contains(os.Args[0], "go-build") {
		return
	}
	if _, errOut, code := hookCLI("install", "claude"); code != cmdline.ExitBadInput || !strings.Contains(errOut, "is a temporary binary of go run or go test") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
