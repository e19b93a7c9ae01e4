package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// closedAddr is a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	return freeAddr(t) // freeAddr closes its listener
}

// Every command prints its help on stdout with exit 0: a synopsis, the
// flags and the exit codes, whether asked with -h, --help or "help CMD",
// and never waits for a bridge (none runs here).
func TestProcessHelpOfEveryCommand(t *testing.T) {
	addr := closedAddr(t)
	names := []string{""}
	for _, c := range newRootCmd().Commands() {
		names = append(names, c.Name())
	}
	for _, name := range names {
		forms := [][]string{{"-h"}, {"--help"}, {"help"}}
		if name != "" {
			forms = [][]string{{name, "-h"}, {name, "--help"}, {"help", name}, {name, "k7m2qx", "--help"}}
		}
		for _, args := range forms {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := runBridge(t, addr, args...)
				synopsis := "Usage:\n  bridge " + name
				if r.code != cmdline.ExitOK || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q; want 0 and help on stdout", r.code, r.stderr)
				}
				for _, want := range []string{synopsis, "Flags:\n", "-h, --help", "Exit codes:\n  0  "} {
					if !strings.Contains(r.stdout, want) {
						t.Errorf("help does not show %q:\n%s", want, r.stdout)
					}
				}
			})
		}
	}
}

// Bad command lines exit 2 with a message that names the problem and
// points to the command's help.
func TestProcessBadCommandLines(t *testing.T) {
	addr := closedAddr(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"cancel", "k7m2qx", "--bogus"}, []string{"bridge cancel: unknown flag: --bogus", `Run "bridge cancel --help" for usage.`}},
		{[]string{"wait"}, []string{"bridge wait: missing the question's ID (usage: bridge wait [flags] ID)"}},
		{[]string{"wait", "a", "b"}, []string{`bridge wait: unexpected argument "b"`}},
		{[]string{"answer", "k7m2qx"}, []string{"bridge answer: missing ID and CHOICE"}},
		{[]string{"cancel", "k7m2qx", "--session", "s"}, []string{"bridge cancel: give an ID or --session, not both"}},
		{[]string{"ask", "--timeout"}, []string{"bridge ask: flag needs an argument: --timeout"}},
		{[]string{"ask", "--connect-timeout", "soon", "Q?"}, []string{`bridge ask: invalid argument "soon" for "--connect-timeout"`}},
		{[]string{"ask"}, []string{"bridge ask: give the question"}},
		{[]string{"lsit"}, []string{`bridge: unknown command "lsit" (did you mean "list"?)`}},
		{[]string{"completion", "tcsh"}, []string{`bridge completion: "tcsh" is not a shell this knows`}},
		{[]string{"health", "--timeout", "0s"}, []string{"bridge health: --timeout must be above zero, not 0s"}},
		{[]string{"health", "now"}, []string{`bridge health: unexpected argument "now"`}},
		{nil, []string{"Usage:\n  bridge COMMAND"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runBridge(t, addr, tt.args...)
			if r.code != cmdline.ExitBadInput {
				t.Errorf("exit %d, want %d", r.code, cmdline.ExitBadInput)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
		})
	}
}

// A blocking command that cannot reach the bridge says so on stderr at
// once and keeps trying; with a short --connect-timeout it gives up with
// exit 1.
func TestProcessUnreachableBridge(t *testing.T) {
	commands := [][]string{
		{"ask", "Which database?"},
		{"wait", "k7m2qx"},
		{"events"},
	}
	for _, args := range commands {
		t.Run(args[0], func(t *testing.T) {
			addr := closedAddr(t)
			server := "http://" + addr
			bg := startBridge(t, addr, append(args, "--connect-timeout", "10m")...)
			say := "bridge " + args[0] + ": cannot reach " + server + " (connection refused); retrying for up to 10m0s, --connect-timeout to change"
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(bg.errb.String(), say) {
				select {
				case code := <-bg.done:
					t.Fatalf("exit %d before saying it cannot reach the bridge; stderr %q", code, bg.errb.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("stderr %q does not say %q", bg.errb.String(), say)
				}
				time.Sleep(20 * time.Millisecond)
			}
			_ = bg.cmd.Process.Kill()

			r := runBridge(t, addr, append(args, "--connect-timeout", "300ms")...)
			if r.code != cmdline.ExitFailure || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
			}
			gaveUp := "bridge " + args[0] + ": cannot reach the bridge at " + server + ": nothing is listening there (is bridge serve running, and is ASKBRIDGE_SERVER right?); gave up after 300ms\n"
			if !strings.HasSuffix(r.stderr, gaveUp) {
				t.Fatalf("stderr %q does not end with %q", r.stderr, gaveUp)
			}
		})
	}
	// A command that does not wait says it at once.
	r := runBridge(t, closedAddr(t), "list")
	if r.code != cmdline.ExitFailure || !strings.HasPrefix(r.stderr, "bridge list: cannot reach the bridge at http://") {
		t.Fatalf("list: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Flags go before or after the arguments; every result prints as JSON
// with --json; errors carry one prefix and a hint.
func TestProcessFlagsAnywhereJSONAndHints(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())

	if r := runBridge(t, addr, "list", "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("list --json with no questions: exit %d, %q", r.code, r.stdout)
	}
	asked := runBridge(t, addr, "ask", "Rename the repo?", "--pending", "--session", "s1", "--timeout", "1h")
	if asked.code != 0 {
		t.Fatalf("ask with flags after the question: exit %d, %s", asked.code, asked.stderr)
	}
	id := decodeResult(t, asked.stdout).ID
	other := decodeResult(t, runBridge(t, addr, "ask", "--pending", "Ship it?", "--option", "Yes", "--option", "No").stdout).ID

	req := filepath.Join(t.TempDir(), "question.json")
	if err := os.WriteFile(req, []byte(`{"question": "Merge it?", "session_id": "s2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile := runBridge(t, addr, "ask", "--request", req, "--pending")
	if fromFile.code != 0 || decodeResult(t, fromFile.stdout).Status != "pending" {
		t.Fatalf("ask --request FILE --pending: exit %d, %s %s", fromFile.code, fromFile.stdout, fromFile.stderr)
	}
	// The old spelling still reads the file, and says so.
	old := runBridge(t, addr, "ask", "--json", req, "--pending")
	if old.code != 0 || decodeResult(t, old.stdout).Status != "pending" || !strings.Contains(old.stderr, "bridge ask: reading the request from "+req+" (--json FILE is the old spelling of --request FILE)") {
		t.Fatalf("ask --json FILE: exit %d, %s %s", old.code, old.stdout, old.stderr)
	}

	var listed []resultJSON
	r := runBridge(t, addr, "list", "--status", "pending", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 4 {
		t.Fatalf("list --json: %v, %s", err, r.stdout)
	}

	var answered struct {
		OK       bool       `json:"ok"`
		Reply    string     `json:"reply"`
		Question resultJSON `json:"question"`
	}
	r = runBridge(t, addr, "answer", other, "1", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &answered); err != nil || r.code != 0 || !answered.OK || answered.Reply != "Recorded: Yes" || answered.Question.Status != "answered" {
		t.Fatalf("answer --json: exit %d, %v, %s", r.code, err, r.stdout)
	}

	r = runBridge(t, addr, "cancel", id, "--reason", "cleanup")
	if res := decodeResult(t, r.stdout); r.code != 0 || res.Status != "cancelled" || res.Reason != "cleanup" {
		t.Fatalf("cancel ID --reason: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	var cancelled struct {
		Cancelled []resultJSON `json:"cancelled"`
	}
	r = runBridge(t, addr, "cancel", "--json", "--session", "nobody")
	if err := json.Unmarshal([]byte(r.stdout), &cancelled); err != nil || r.code != 0 || cancelled.Cancelled == nil {
		t.Fatalf("cancel --session --json: exit %d, %v, %q", r.code, err, r.stdout)
	}

	var v struct {
		Version string `json:"version"`
	}
	r = runBridge(t, addr, "version", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Version == "" {
		t.Fatalf("version --json: %v, %q", err, r.stdout)
	}

	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"answer", "k7m2qx", "2"}, `bridge answer: There is no question k7m2qx here. Run "bridge list" to see open questions' ids.` + "\n"},
		{[]string{"decline", "k7m2qx", "--json"}, `bridge decline: There is no question k7m2qx here. Run "bridge list" to see open questions' ids.` + "\n"},
		{[]string{"answer", other, "2"}, "bridge answer: Already answered by local"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runBridge(t, addr, tt.args...)
			if r.code != cmdline.ExitFailure || !strings.HasPrefix(r.stderr, tt.stderr) || strings.Contains(r.stderr, "askbridge:") || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", r.code, r.stdout, r.stderr, tt.stderr)
			}
		})
	}
}

// completion prints a script for each shell.
func TestProcessCompletion(t *testing.T) {
	tests := []struct{ shell, want string }{
		{"bash", "complete -o default -F __start_bridge bridge"},
		{"zsh", "#compdef bridge"},
		{"fish", "complete -c bridge"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			r := runBridge(t, closedAddr(t), "completion", tt.shell)
			if r.code != 0 || !strings.Contains(r.stdout, tt.want) {
				t.Fatalf("exit %d; the script does not contain %q:\n%.300s", r.code, tt.want, r.stdout)
			}
		})
	}
	// The script completes commands through the binary itself.
	r := runBridge(t, closedAddr(t), "__complete", "ch")
	if r.code != 0 || !strings.Contains(r.stdout, "check-config") {
		t.Fatalf("completing \"ch\": exit %d, %q", r.code, r.stdout)
	}
}

// The secrets config.example.yaml names, which are not set here.
var exampleSecrets = []string{
	"ASKBRIDGE_AGENT_KEY_CLAUDE", "ASKBRIDGE_RESPONDER_KEY_ANA", "ASKBRIDGE_CALLBACK_SECRET_CLAUDE",
	"ASKBRIDGE_TELEGRAM_TOKEN", "ASKBRIDGE_SLACK_BOT_TOKEN", "ASKBRIDGE_SLACK_APP_TOKEN", "ASKBRIDGE_DISCORD_TOKEN",
}

// check-config on the example, as the README and the file recommend, on
// a machine without its secrets: every unset one in one run, told apart
// from mistakes; --allow-missing-env accepts them; serve still refuses.
func TestProcessCheckConfigExampleWithoutSecrets(t *testing.T) {
	for _, env := range exampleSecrets {
		t.Setenv(env, "")
	}
	addr := closedAddr(t)
	example := "../../config.example.yaml"

	r := runBridge(t, addr, "check-config", "--config", example)
	if r.code != cmdline.ExitBadInput || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 2 and nothing", r.code, r.stdout)
	}
	want := "The configuration is OK apart from 7 unset secrets: " + strings.Join(exampleSecrets, ", ") + ". Set them, or pass --allow-missing-env to accept them."
	if !strings.Contains(r.stderr, "7 problems:\n") || !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr does not list the 7 unset secrets in one run and say %q:\n%s", want, r.stderr)
	}
	for _, env := range exampleSecrets {
		if !strings.Contains(r.stderr, "environment variable "+env+" is not set\n") {
			t.Errorf("stderr does not name %s:\n%s", env, r.stderr)
		}
	}

	r = runBridge(t, addr, "check-config", "--config", example, "--allow-missing-env")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "config OK apart from 7 unset secrets: "+strings.Join(exampleSecrets, ", ")+"; listen 127.0.0.1:8377") {
		t.Fatalf("--allow-missing-env: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	var report struct {
		OK       bool     `json:"ok"`
		Problems []string `json:"problems"`
		UnsetEnv []string `json:"unset_env"`
	}
	r = runBridge(t, addr, "check-config", "--config", example, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || r.code != cmdline.ExitBadInput || report.OK || len(report.Problems) != 7 || strings.Join(report.UnsetEnv, ",") != strings.Join(exampleSecrets, ",") {
		t.Fatalf("--json: exit %d, %v, %+v", r.code, err, report)
	}

	r = runBridge(t, addr, "serve", "--config", example, "--listen", addr, "--data-dir", t.TempDir())
	if r.code != cmdline.ExitBadInput || !strings.Contains(r.stderr, "bridge serve: config "+example+": 7 problems:") {
		t.Fatalf("serve with unset secrets: exit %d, stderr %q", r.code, r.stderr)
	}
}

// completion bash says when the bash-completion package is missing, and
// Tab in a shell without it says so instead of failing with "command not
// found"; where the package is installed, completion prints the script
// alone.
func TestCompletionBashNeedsBashCompletion(t *testing.T) {
	saved := bashCompletionFiles
	t.Cleanup(func() { bashCompletionFiles = saved })
	installed := filepath.Join(t.TempDir(), "bash_completion")
	if err := os.WriteFile(installed, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		files []string
		says  bool
	}{
		{"missing", []string{filepath.Join(t.TempDir(), "none")}, true},
		{"installed", []string{installed}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bashCompletionFiles = tt.files
			var stdout, stderr bytes.Buffer
			if code := run([]string{"completion", "bash"}, strings.NewReader(""), &stdout, &stderr); code != cmdline.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if got := strings.Contains(stderr.String(), "needs the bash-completion package"); got != tt.says {
				t.Fatalf("stderr %q; want the package named: %v", stderr.String(), tt.says)
			}
			if !strings.Contains(stdout.String(), "complete -o default -F __start_bridge bridge") {
				t.Fatalf("no script:\n%.300s", stdout.String())
			}
		})
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here to press Tab in")
	}
	var script bytes.Buffer
	if code := run([]string{"completion", "bash"}, strings.NewReader(""), &script, io.Discard); code != cmdline.ExitOK {
		t.Fatalf("exit %d", code)
	}
	file := filepath.Join(t.TempDir(), "bridge.bash")
	if err := os.WriteFile(file, script.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := exec.Command(bash, "--norc", "--noprofile", "-c", `source "$1"; unset -f _get_comp_words_by_ref
COMP_WORDS=(bridge se); COMP_CWORD=1; COMP_LINE="bridge se"; COMP_POINT=9
__start_bridge; echo "status $?"`, "tab", file)
	out, err := tab.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "Tab completion needs the bash-completion package") || strings.Contains(string(out), "command not found") {
		t.Fatalf("Tab without bash-completion shows:\n%s", out)
	}
}

// Help lists only what a command has: wait has no --pending, the root
// lists -v, --version, and so does docs/cli.md.
func TestHelpListsWhatTheCommandHas(t *testing.T) {
	help := func(args ...string) string {
		var stdout bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, io.Discard); code != cmdline.ExitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		return stdout.String()
	}
	if h := help("wait", "-h"); strings.Contains(h, "pending") {
		t.Errorf("wait -h mentions --pending, which wait has not:\n%s", h)
	}
	if h := help("ask", "-h"); !strings.Contains(h, "still pending, with --pending") {
		t.Errorf("ask -h lost --pending's exit code:\n%s", h)
	}
	if h := help("-h"); !strings.Contains(h, "-v, --version") {
		t.Errorf("bridge -h does not list -v, --version:\n%s", h)
	}
	ref, err := writeCLIReference(newRootCmd())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ref), "-v, --version") {
		t.Error("the CLI reference does not list -v, --version")
	}
}

// bridge health exits 0 only where a bridge answers /healthz, and says
// what it found elsewhere: nothing listening, another server, an address
// without a scheme.
func TestProcessHealth(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>welcome</html>")
	}))
	defer other.Close()
	addr := freeAddr(t)
	startServe(t, addr, []string{"ASKBRIDGE_DATA_DIR=" + t.TempDir()})
	for _, tt := range []struct {
		server string
		code   int
		want   string
	}{
		{"http://" + addr, 0, "ok: http://" + addr},
		{"http://" + closedAddr(t), cmdline.ExitFailure, "cannot reach"},
		{other.URL, cmdline.ExitFailure, "is not an askbridge bridge"},
		{addr, cmdline.ExitFailure, "has no scheme: write it as http://" + addr},
	} {
		t.Run(tt.server, func(t *testing.T) {
			r := runBridge(t, addr, "health", "--server", tt.server, "--timeout", "3s")
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.want) {
				t.Errorf("exit %d, out %q, err %q; want exit %d saying %q", r.code, r.stdout, r.stderr, tt.code, tt.want)
			}
		})
	}
}
