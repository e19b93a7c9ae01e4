// Package deploy holds the files that run askbridge as a service: a
// container image, a compose file and a systemd unit. No Docker engine runs
// where these tests run, so they check what can be checked without one:
// the binary the Dockerfile builds is static and serves as an unprivileged
// user in an empty root with only its data directory writable; the unit
// passes systemd-analyze; the compose file and the Dockerfile say what
// docs/deploy.md says they do.
package deploy

import (
	"bufio"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
	"go.yaml.in/yaml/v3"
)

// nonroot is the user of the image's base (distroless "nonroot").
const nonroot = 65532

const (
	agentKey = "deploy-test-agent-key-0123456789abcdef"
	webToken = "deploy-test-web-token-0123456789"
)

// dockerfile returns the lines of deploy/Dockerfile, with continuations
// joined.
func dockerfile(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "#") || (l == "" && cur.Len() == 0) {
			continue
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur.WriteString(strings.TrimSpace(s) + " ")
			continue
		}
		cur.WriteString(l)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	return lines
}

// buildLine is the Dockerfile's RUN line that builds the binary.
func buildLine(t *testing.T) string {
	t.Helper()
	for _, l := range dockerfile(t) {
		if strings.HasPrefix(l, "RUN ") && strings.Contains(l, "go build") {
			return strings.TrimPrefix(l, "RUN ")
		}
	}
	t.Fatal("deploy/Dockerfile has no RUN line with go build")
	return ""
}

// built is the binary the Dockerfile's build line gives, built once.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the built binary's folder after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildAsImage puts at out the binary built with the Dockerfile's own
// build line (writing to a folder of its own instead of /out/bridge).
func buildAsImage(t *testing.T, out string) {
	t.Helper()
	line := buildLine(t)
	if !strings.Contains(line, "-o /out/bridge") {
		t.Fatalf("the build line %q does not write /out/bridge", line)
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "askbridge-deploy-"); built.err != nil {
			return
		}
		cmd := exec.Command("sh", "-c", strings.Replace(line, "-o /out/bridge", "-o "+filepath.Join(built.dir, "bridge"), 1))
		cmd.Dir = ".."
		if b, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%s: %v\n%s", line, err, b)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	data, err := os.ReadFile(filepath.Join(built.dir, "bridge"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestDockerfileBuildsAStaticBinary: the build line gives a binary with no
// interpreter and no shared library, which is what runs on a base with no
// C library.
func TestDockerfileBuildsAStaticBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bridge")
	buildAsImage(t, bin)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary names a program interpreter: it is dynamically linked (is CGO_ENABLED=0 still on the build line?)")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v (err %v)", libs, err)
	}
}

// TestDockerfileSaysWhatTheDocsSay checks the image's settings that docs/
// deploy.md promises: two stages, a static build, a non-root numeric user,
// the data volume, and the health check on /healthz through the binary.
func TestDockerfileSaysWhatTheDocsSay(t *testing.T) {
	lines := dockerfile(t)
	count := func(prefix string) (n int) {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		return n
	}
	has := func(want string) {
		t.Helper()
		if !slices.Contains(lines, want) {
			t.Errorf("deploy/Dockerfile lacks the line %q", want)
		}
	}
	if n := count("FROM "); n != 2 {
		t.Errorf("deploy/Dockerfile has %d stages, want 2 (build, then a minimal base)", n)
	}
	if !strings.HasPrefix(buildLine(t), "CGO_ENABLED=0 go build") {
		t.Errorf("the build line %q does not start with CGO_ENABLED=0", buildLine(t))
	}
	has("USER " + strconv.Itoa(nonroot) + ":" + strconv.Itoa(nonroot))
	has(`VOLUME ["/data"]`)
	has("ENV ASKBRIDGE_DATA_DIR=/data ASKBRIDGE_CONFIG=/etc/askbridge/askbridge.yaml")
	has(`ENTRYPOINT ["/bridge"]`)
	hc := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "HEALTHCHECK ") {
			hc = l
		}
	}
	if !strings.HasSuffix(hc, `CMD ["/bridge", "health", "--timeout", "4s"]`) {
		t.Errorf("HEALTHCHECK is %q, want it to run /bridge health", hc)
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// inRoot runs the binary /bridge in root as the image's user, with the
// image's environment.
func inRoot(root string, args ...string) *exec.Cmd {
	cmd := exec.Command("chroot", append([]string{"--userspec=" + strconv.Itoa(nonroot) + ":" + strconv.Itoa(nonroot), root, "/bridge"}, args...)...)
	cmd.Env = []string{
		"ASKBRIDGE_DATA_DIR=/data",
		"ASKBRIDGE_CONFIG=/etc/askbridge/askbridge.yaml",
		"ASKBRIDGE_AGENT_KEY=" + agentKey,
		"ASKBRIDGE_WEB_TOKEN=" + webToken,
	}
	return cmd
}

// TestImageRunsUnprivilegedInAnEmptyRoot runs the image's binary as the
// image would: as user 65532, in a root that holds only the binary, the
// configuration and /data, where only /data is writable. It serves, its
// health check passes, a question goes in and out, everything it wrote is
// under /data, and SIGTERM ends it cleanly.
func TestImageRunsUnprivilegedInAnEmptyRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chroot and a change of user need root (the CI runner is root)")
	}
	if _, err := exec.LookPath("chroot"); err != nil {
		t.Skip("no chroot command")
	}
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	buildAsImage(t, filepath.Join(root, "bridge"))
	if err := os.MkdirAll(filepath.Join(root, "etc", "askbridge"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile("askbridge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "askbridge", "askbridge.yaml"), conf, 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(data, nonroot, nonroot); err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	_ = filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error { before[p] = true; return nil })

	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// The image's configuration listens on 0.0.0.0:8377; the test moves
	// only the port, so the bridge still listens beyond loopback and so
	// still demands the agent key and the inbox token.
	srv := inRoot(root, "serve", "--listen", "0.0.0.0:"+strconv.Itoa(port))
	var out strings.Builder
	srv.Stdout, srv.Stderr = &out, &out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		_ = srv.Process.Kill()
		if t.Failed() {
			t.Logf("bridge output:\n%s", out.String())
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("bridge serve exited early (%v)", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("bridge serve not ready after 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The image's HEALTHCHECK, run as the image's user.
	if b, err := inRoot(root, "health", "--server", "http://"+addr).CombinedOutput(); err != nil || !strings.HasPrefix(string(b), "ok: ") {
		t.Errorf("bridge health: %v, %q", err, b)
	}
	// And it fails where nothing listens.
	closed := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	b, err := inRoot(root, "health", "--server", closed, "--timeout", "2s").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(b), "127.0.0.1") {
		t.Errorf("bridge health against a closed port: %v, %q; want exit 1 naming the address", err, b)
	}

	// A question in and out, written to the store under /data.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.New("http://"+addr, "wrong-key").AskAsync(ctx, client.Question{Question: "Deploy?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}}); err == nil {
		t.Error("an ask with a wrong key was taken")
	}
	c := client.New("http://"+addr, agentKey)
	id, err := c.AskAsync(ctx, client.Question{Question: "Deploy?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Cancel(ctx, id, "deploy test")
	if err != nil || res.Status != client.StatusCancelled {
		t.Fatalf("cancel %s: %+v, %v", id, res, err)
	}

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM the bridge exited with %v, want 0", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("the bridge did not stop within 45s of SIGTERM")
	}

	// Everything new is under /data, owned by the image's user.
	var stored bool
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || before[p] {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if !strings.HasPrefix(rel, "data"+string(filepath.Separator)) {
			t.Errorf("the bridge wrote %s outside /data", rel)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != nonroot {
			t.Errorf("%s is owned by uid %d, want %d", rel, st.Uid, nonroot)
		}
		if strings.HasSuffix(p, ".db") {
			stored = true
		}
		return nil
	})
	if !stored {
		t.Error("no SQLite file under /data: where did the question go?")
	}
}

// TestSystemdUnitVerifies runs systemd-analyze verify on the unit (with
// ExecStart pointed at a built binary, which verify requires to exist) and
// checks the hardening it promises with systemd-analyze security.
func TestSystemdUnitVerifies(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("no systemd-analyze")
	}
	unit, err := os.ReadFile("askbridge.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"DynamicUser=yes", "StateDirectory=askbridge", "ProtectSystem=strict",
		"NoNewPrivileges=yes", "ProtectHome=yes", "PrivateTmp=yes", "CapabilityBoundingSet=",
		"Environment=ASKBRIDGE_DATA_DIR=%S/askbridge",
	} {
		if !slices.Contains(strings.Split(string(unit), "\n"), want) {
			t.Errorf("deploy/askbridge.service lacks %q", want)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bridge")
	buildAsImage(t, bin)
	const installed = "/usr/local/bin/bridge"
	if !strings.Contains(string(unit), "ExecStart="+installed+" ") {
		t.Fatalf("ExecStart does not run %s", installed)
	}
	path := filepath.Join(dir, "askbridge.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(unit), installed, bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, b)
	}
	// verify exits 0 on an unknown key, only warning: any line about the
	// unit is a finding.
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "askbridge.service") {
			t.Errorf("systemd-analyze verify: %s", l)
		}
	}
	b, err = exec.Command("systemd-analyze", "security", "--offline=yes", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, b)
	}
	m := regexp.MustCompile(`Overall exposure level for askbridge\.service: ([0-9.]+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", b)
	}
	if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 2.0 {
		t.Errorf("exposure level %.1f, want 2.0 or less (\"OK\"):\n%s", level, b)
	}
}

// TestComposeRunsTwoBridgesOnRedis reads compose.yaml as compose would
// (anchors and merge keys) and checks its two bridges share one Redis.
func TestComposeRunsTwoBridgesOnRedis(t *testing.T) {
	data, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Services map[string]struct {
			Build struct {
				Context    string `yaml:"context"`
				Dockerfile string `yaml:"dockerfile"`
			} `yaml:"build"`
			Image       string            `yaml:"image"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			Volumes     []string          `yaml:"volumes"`
			DependsOn   map[string]struct {
				Condition string `yaml:"condition"`
			} `yaml:"depends_on"`
			ReadOnly    bool `yaml:"read_only"`
			Healthcheck *struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
		} `yaml:"services"`
		Volumes map[string]any `yaml:"volumes"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	redis, ok := f.Services["redis"]
	if !ok || redis.Healthcheck == nil {
		t.Fatalf("compose.yaml has no redis service with a health check: %+v", f.Services)
	}
	ports := map[string]bool{}
	for _, name := range []string{"bridge-a", "bridge-b"} {
		s, ok := f.Services[name]
		if !ok {
			t.Errorf("compose.yaml has no service %s", name)
			continue
		}
		if s.Build.Dockerfile != "deploy/Dockerfile" || s.Build.Context != ".." {
			t.Errorf("%s builds %+v, want deploy/Dockerfile from the project root", name, s.Build)
		}
		if !slices.Equal(s.Command, []string{"serve", "--store", "redis://redis:6379/0"}) {
			t.Errorf("%s runs %q, want serve on the redis service", name, s.Command)
		}
		if s.DependsOn["redis"].Condition != "service_healthy" {
			t.Errorf("%s does not wait for a healthy redis", name)
		}
		for _, k := range []string{"ASKBRIDGE_AGENT_KEY", "ASKBRIDGE_WEB_TOKEN"} {
			if !strings.HasPrefix(s.Environment[k], "${"+k+":?") {
				t.Errorf("%s takes %s as %q, want it required from the environment", name, k, s.Environment[k])
			}
		}
		if !s.ReadOnly {
			t.Errorf("%s has a writable root file system", name)
		}
		if len(s.Volumes) != 1 || !strings.HasSuffix(s.Volumes[0], ":/data") {
			t.Errorf("%s mounts %q, want one volume on /data", name, s.Volumes)
		}
		for _, p := range s.Ports {
			if ports[p] {
				t.Errorf("%s publishes %s twice", name, p)
			}
			ports[p] = true
		}
	}
	if len(ports) != 2 {
		t.Errorf("the bridges publish %v, want one port each", ports)
	}
}

// TestImageConfigurationChecks: the configuration the image carries passes
// check-config with its secrets set, and names each one when unset.
func TestImageConfigurationChecks(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bridge")
	buildAsImage(t, bin)
	cmd := exec.Command(bin, "check-config", "askbridge.yaml")
	cmd.Env = []string{"ASKBRIDGE_AGENT_KEY=" + agentKey, "ASKBRIDGE_WEB_TOKEN=" + webToken}
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "listen 0.0.0.0:8377") {
		t.Errorf("check-config with the secrets set: %v\n%s", err, b)
	}
	cmd = exec.Command(bin, "check-config", "askbridge.yaml")
	cmd.Env = []string{}
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "ASKBRIDGE_AGENT_KEY") || !strings.Contains(string(b), "ASKBRIDGE_WEB_TOKEN") {
		t.Errorf("check-config without the secrets: %v\n%s", err, b)
	}
}
