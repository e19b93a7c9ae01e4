package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// hookInstallTimeout is the hook's timeout written to the agent's
// settings, in seconds. Both agents kill a hook after it (their default
// is 600 s); it is longer than the question's default timeout
// (defaultHookTimeout), so the question ends first and the hook exits by
// itself.
const hookInstallTimeout = 1800

// hookStatusMessage is shown by the agent while the hook waits.
const hookStatusMessage = "Waiting for an answer in chat (askbridge)"

// hookTarget is where an agent keeps its hooks and which ones the bridge
// adds there.
type hookTarget struct {
	agent   string
	entries []hookEntry
	// user returns the user-scope file; project and local are relative
	// to the current directory ("" when the scope does not exist).
	user           func() (string, error)
	project, local string
	// note is printed after an install.
	note string
}

// hookEntry is one hook the bridge adds: an event, its matcher ("" for
// events that take none), and whether the agent runs it in the background
// (a report the agent need not wait for), with a short timeout.
type hookEntry struct {
	event, matcher string
	async          bool
}

// hookReportTimeout is the timeout, in seconds, of the hooks that only
// report (async entries): they close questions and never wait for people.
const hookReportTimeout = 30

var hookTargets = map[string]hookTarget{
	"claude": {
		agent: "claude",
		entries: []hookEntry{
			{event: "PermissionRequest", matcher: "*"},
			{event: "PreToolUse", matcher: "AskUserQuestion"},
			// The forms of other MCP servers (elicitation.go); the
			// matcher is the server's name.
			{event: "Elicitation", matcher: "*"},
			// Claude Code tells no hook when its own dialog is answered
			// first; these events close the chat's copy (settled.go).
			{event: "PostToolUse", matcher: "*", async: true},
			{event: "PostToolUseFailure", matcher: "*", async: true},
			{event: "Stop", async: true},
		},
		user:    func() (string, error) { return homeFile(".claude", "settings.json") },
		project: filepath.Join(".claude", "settings.json"),
		local:   filepath.Join(".claude", "settings.local.json"),
	},
	"codex": {
		agent:   "codex",
		entries: []hookEntry{{event: "PermissionRequest", matcher: "*"}},
		user: func() (string, error) {
			if d := os.Getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "hooks.json"), nil
			}
			return homeFile(".codex", "hooks.json")
		},
		project: filepath.Join(".codex", "hooks.json"),
		note: "Codex runs a new command hook only after it is reviewed and trusted: open /hooks in Codex once.\n" +
			"A project's .codex/hooks.json is read only in a trusted project.",
	},
}

func homeFile(dir, name string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory: %w", err)
	}
	return filepath.Join(home, dir, name), nil
}

// runHookInstall is `bridge hook install` and `bridge hook uninstall`
// with their flags parsed: it edits the agent's settings file of the
// chosen scope. The command written is command, or exe (this bridge's
// path) and " hook AGENT"; install refuses an exe that will not last (a
// binary of go run or go test).
func runHookInstall(agentArg string, project, local bool, command, exe string, stdout, stderr io.Writer, remove bool) int {
	verb := "install"
	if remove {
		verb = "uninstall"
	}
	t, ok := hookTargets[agentArg]
	if !ok {
		fmt.Fprintf(stderr, "bridge hook %s: name the agent: bridge hook %s claude|codex [--project | --local]\n", verb, verb)
		return cmdline.ExitBadInput
	}
	path, err := t.file(project, local)
	if err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: %v\n", verb, err)
		return cmdline.ExitBadInput
	}
	cmd := command
	if cmd == "" {
		if !remove {
			if err := lastingExecutable(exe); err != nil {
				fmt.Fprintf(stderr, "bridge hook %s: %v\n", verb, err)
				return cmdline.ExitBadInput
			}
		}
		cmd = shellQuote(exe) + " hook " + t.agent
	}
	report, err := editHookFile(path, t, cmd, remove, project || local)
	for _, line := range report {
		fmt.Fprintf(stdout, "%s: %s\n", path, line)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: %s: %v; the file was not changed\n", verb, path, err)
		return cmdline.ExitBadInput
	}
	if !remove && t.note != "" {
		fmt.Fprintln(stdout, t.note)
	}
	return cmdline.ExitOK
}

// lastingExecutable refuses a binary that go run or go test built: it
// lives in the Go build cache (GOCACHE, by default the go-build directory
// of the user's cache) or in a go-build* temporary directory, and is gone
// once go run exits, leaving the agent a hook command that fails.
func lastingExecutable(exe string) error {
	temporary := false
	for _, el := range strings.Split(filepath.ToSlash(exe), "/") {
		temporary = temporary || strings.HasPrefix(el, "go-build")
	}
	cache := os.Getenv("GOCACHE")
	if cache == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(d, "go-build")
		}
	}
	if rel, err := filepath.Rel(cache, exe); cache != "" && cache != "off" && err == nil && !strings.HasPrefix(rel, "..") {
		temporary = true
	}
	if !temporary {
		return nil
	}
	return fmt.Errorf("%s is a temporary binary of go run or go test, deleted when it exits; "+
		"install the bridge first (go install ./cmd/bridge, or go build -o bridge ./cmd/bridge) and run install with that binary, "+
		"or name the hook command with --command", exe)
}

// file picks the settings file of the chosen scope.
func (t hookTarget) file(project, local bool) (string, error) {
	switch {
	case project && local:
		return "", errors.New("give --project or --local, not both")
	case local && t.local == "":
		return "", fmt.Errorf("%s has no local scope; use --project or no flag", t.agent)
	case local:
		return filepath.Abs(t.local)
	case project:
		return filepath.Abs(t.project)
	}
	return t.user()
}

// editHookFile adds (or removes) the bridge's hooks in the settings file
// at path and returns what it did, one line per hook. The file is written
// only when something changed, and never when it cannot be read as the
// agent's settings.
func editHookFile(path string, t hookTarget, cmd string, remove, shared bool) ([]string, error) {
	data, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, err
	}
	if missing && remove {
		return []string{"does not exist; nothing to remove"}, nil
	}
	settings := jsonObject{}
	if len(bytes.TrimSpace(data)) > 0 {
		if settings, err = parseObject(data, "the file"); err != nil {
			return nil, err
		}
	}
	edit := addHooks
	if remove {
		edit = removeHooks
	}
	report, changed, err := edit(&settings, t.entries, cmd)
	if err != nil {
		return nil, err
	}
	if !changed {
		if remove {
			return []string{fmt.Sprintf("no hook with the command %q; nothing changed", cmd)}, nil
		}
		return append(report, "nothing changed"), nil
	}
	out, err := settings.file()
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, out, shared); err != nil {
		return nil, err
	}
	return report, nil
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory, keeping the file's mode (a new file is 0644 in a
// project, 0600 in the user's settings).
func writeFileAtomic(path string, data []byte, shared bool) error {
	mode, dirMode := fs.FileMode(0o600), fs.FileMode(0o700)
	if shared {
		mode, dirMode = 0o644, 0o755
	}
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// bridgeExecutable is the path this bridge was started by, made absolute
// (a symlink on the PATH stays a symlink, so upgrades keep working).
func bridgeExecutable() string {
	p := os.Args[0]
	if !strings.Contains(p, string(filepath.Separator)) {
		if lp, err := exec.LookPath(p); err == nil {
			p = lp
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return "bridge"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
