package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RiskKind names one kind of risk a tool call carries.
type RiskKind string

// The risks Risks points out, in the order they are listed.
const (
	// RiskRemoteCode: downloads code and runs it (curl … | sh).
	RiskRemoteCode RiskKind = "remote_code"
	// RiskHiddenCode: runs code the preview does not show (eval, base64 -d | sh).
	RiskHiddenCode RiskKind = "hidden_code"
	// RiskRecursiveDelete: deletes a tree (rm -r, find -delete, git clean -f).
	RiskRecursiveDelete RiskKind = "recursive_delete"
	// RiskOutsideProject: writes a path outside the working directory.
	RiskOutsideProject RiskKind = "outside_project"
	// RiskPrivileged: runs as another user (sudo, doas, su -c).
	RiskPrivileged RiskKind = "privileged"
	// RiskHistory: rewrites git history or discards commits (push
	// --force, reset --hard, rebase, filter-branch). git commit --amend is
	// not one: it rewrites a local commit only, and publishing that over
	// a pushed one needs a force push, which is.
	RiskHistory RiskKind = "git_history"
)

var riskOrder = []RiskKind{RiskRemoteCode, RiskHiddenCode, RiskRecursiveDelete, RiskOutsideProject, RiskPrivileged, RiskHistory}

var riskTexts = map[RiskKind]string{
	RiskRemoteCode:      "Downloads and runs code from the internet",
	RiskHiddenCode:      "Runs code that is not shown here (eval, decoded text)",
	RiskRecursiveDelete: "Deletes recursively",
	RiskOutsideProject:  "Writes outside the project",
	RiskPrivileged:      "Runs as another user (sudo, doas, su)",
	RiskHistory:         "Rewrites git history or discards commits",
}

// Risk is one thing a tool call does that a person should weigh before
// allowing it, in words read at a glance.
type Risk struct {
	Kind RiskKind
	Text string
}

// maxRiskPaths bounds the paths a RiskOutsideProject text names, and
// maxRiskPath the characters of each.
const (
	maxRiskPaths = 3
	maxRiskPath  = 120
)

// Risks returns the risks of a tool call, in the order of riskOrder: for
// Bash its shell command (read by parseShell, so that quoted words and
// arguments are not taken for commands), for Edit, Write, MultiEdit and
// NotebookEdit the path written, for apply_patch the files of the patch.
// cwd is the agent's working directory, the project; without it no write
// is called outside. Other tools have none.
func Risks(tool string, input json.RawMessage, cwd string) []Risk {
	v, err := decodeInput(input)
	if err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	if m == nil {
		return nil
	}
	a := &riskScan{found: map[RiskKind]bool{}, project: cleanDir(cwd)}
	a.home, _ = os.UserHomeDir()
	switch tool {
	case "Bash":
		a.script(parseShell(commandText(m["command"])), a.project)
	case "Edit", "Write", "MultiEdit":
		a.write(str(m, "file_path"), a.project)
	case "NotebookEdit":
		a.write(str(m, "notebook_path"), a.project)
	case "apply_patch":
		for _, l := range strings.Split(str(m, "command"), "\n") {
			for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if f, ok := strings.CutPrefix(l, p); ok {
					a.write(strings.TrimSpace(f), a.project)
				}
			}
		}
	}
	var out []Risk
	for _, k := range riskOrder {
		if !a.found[k] {
			continue
		}
		text := riskTexts[k]
		if k == RiskOutsideProject {
			var shown []string
			for _, p := range a.outside[:min(len(a.outside), maxRiskPaths)] {
				shown = append(shown, cutText(p, maxRiskPath))
			}
			text += ": " + strings.Join(shown, ", ")
			if n := len(a.outside) - maxRiskPaths; n > 0 {
				text += fmt.Sprintf(" and %d more", n)
			}
		}
		out = append(out, Risk{Kind: k, Text: text})
	}
	return out
}

// commandText is a command as text: Codex may send an argument list.
func commandText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var words []string
		for _, w := range t {
			if s, ok := w.(string); ok {
				words = append(words, shellQuote(s))
			}
		}
		return strings.Join(words, " ")
	}
	return ""
}

func cleanDir(d string) string {
	if d == "" || !filepath.IsAbs(d) {
		return ""
	}
	return filepath.Clean(d)
}
