package hooks

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The scan behind Risks: it walks the parsed shell script (shell.go) and
// notes what each command does.

// riskScan gathers the risks of one tool call.
type riskScan struct {
	found   map[RiskKind]bool
	project string // "" when unknown: nothing is called outside
	home    string
	outside []string
	// fetched are the files a download wrote, so that running one later
	// counts as running downloaded code.
	fetched []string
	depth   int
}

// Command names by what they do.
var (
	downloaders  = []string{"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-download"}
	shells       = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"}
	interpreters = []string{"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "pwsh", "powershell", "lua", "deno", "bun", "source", ".", "eval"}
	privileged   = []string{"sudo", "doas", "pkexec", "run0"}
)

// runsCode reports whether name runs the code it is given.
func runsCode(name string) bool {
	return slices.Contains(shells, name) || slices.Contains(interpreters, name) || strings.HasPrefix(name, "python")
}

// script scans the commands of sc run in directory dir ("" unknown).
func (a *riskScan) script(sc *shScript, dir string) {
	if a.depth > 20 {
		return
	}
	a.depth++
	defer func() { a.depth-- }()
	type stage struct {
		name                   string
		pipeline               int
		fetches, decodes, runs bool
	}
	stages := make([]stage, len(sc.cmds))
	for i, c := range sc.cmds {
		for _, sub := range c.subs {
			a.script(sub, dir)
		}
		for _, r := range c.redirs {
			if strings.HasPrefix(r.op, ">") && r.op != ">&" || strings.HasPrefix(r.op, "&>") || r.op == "<>" {
				a.write(r.target, dir)
			}
		}
		name, args := a.command(c.words)
		if name == "" {
			continue
		}
		st := stage{name: name, pipeline: c.pipeline, runs: runsCode(name)}
		st.fetches = slices.Contains(downloaders, name) || fetchesIn(c.subs)
		st.decodes = decodes(name, args)
		stages[i] = st
		if st.runs && (fetchesIn(c.subs) || slices.ContainsFunc(args, a.wasFetched)) {
			a.found[RiskRemoteCode] = true
		}
		if a.wasFetched(name) {
			a.found[RiskRemoteCode] = true
		}
		if c.heredoc != "" && st.runs && slices.Contains(shells, name) {
			a.script(parseShell(c.heredoc), dir)
		}
		dir = a.commandRisks(name, args, dir)
	}
	// A download or a decoding piped into a program that runs code.
	for i, s := range stages {
		for _, t := range stages[i+1:] {
			if t.name == "" || t.pipeline != s.pipeline {
				continue
			}
			if t.runs && s.fetches {
				a.found[RiskRemoteCode] = true
			}
			if t.runs && s.decodes {
				a.found[RiskHiddenCode] = true
			}
		}
	}
}

// command finds the command of words: it skips assignments, control
// words and wrappers (env, nohup, xargs, …), noting sudo and its kin.
func (a *riskScan) command(words []string) (string, []string) {
	skipWithValue := func(i int, flags ...string) int {
		for i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "-" {
			if words[i] == "--" {
				return i + 1
			}
			if slices.Contains(flags, words[i]) {
				i++
			}
			i++
		}
		return i
	}
	for i := 0; i < len(words); {
		w := words[i]
		name := path.Base(w)
		switch {
		case isAssignment(w):
			i++
		case slices.Contains([]string{"{", "}", "!", "if", "then", "else", "elif", "do", "while", "until", "time", "nohup", "command", "builtin", "exec", "setsid"}, w):
			i++
		case slices.Contains(privileged, name):
			a.found[RiskPrivileged] = true
			i = skipWithValue(i+1, "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R")
		case name == "su":
			a.found[RiskPrivileged] = true
			for k := i + 1; k+1 < len(words); k++ {
				if words[k] == "-c" || words[k] == "--command" {
					a.script(parseShell(words[k+1]), a.project)
				}
			}
			return "", nil
		case name == "env":
			i = skipWithValue(i+1, "-u", "-C", "-S")
			for i < len(words) && isAssignment(words[i]) {
				i++
			}
		case name == "nice" || name == "ionice" || name == "stdbuf":
			i = skipWithValue(i+1, "-n", "-c")
		case name == "timeout":
			i = skipWithValue(i+1, "-s", "-k")
			i++ // the duration
		case name == "xargs":
			i = skipWithValue(i+1, "-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a")
		default:
			return name, words[i+1:]
		}
	}
	return "", nil
}

func isAssignment(w string) bool {
	k := strings.IndexByte(w, '=')
	if k <= 0 {
		return false
	}
	for i, c := range w[:k] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// fetchesIn reports whether any of the scripts downloads something.
func fetchesIn(subs []*shScript) bool {
	for _, sc := range subs {
		for _, c := range sc.cmds {
			name, _ := (&riskScan{found: map[RiskKind]bool{}}).command(c.words)
			if slices.Contains(downloaders, name) || fetchesIn(c.subs) {
				return true
			}
		}
	}
	return false
}

// decodes reports whether the command decodes its input (base64 -d).
func decodes(name string, args []string) bool {
	switch name {
	case "base64", "base32", "basenc":
		return slices.ContainsFunc(args, func(a string) bool {
			return a == "--decode" || a == "-D" || shortFlag(a, 'd')
		})
	case "xxd":
		return slices.ContainsFunc(args, func(a string) bool { return shortFlag(a, 'r') || a == "-revert" })
	case "uudecode", "gunzip", "zcat", "gzip", "bunzip2", "xz", "unxz":
		return name != "gzip" && name != "xz" || slices.ContainsFunc(args, func(a string) bool { return shortFlag(a, 'd') })
	case "openssl":
		return slices.Contains(args, "-d") || slices.Contains(args, "-base64") && slices.Contains(args, "-d")
	}
	return false
}

// shortFlag reports whether a is a cluster of short flags holding f.
func shortFlag(a string, f byte) bool {
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f) >= 0
}

// wasFetched reports whether w names a file an earlier download wrote.
func (a *riskScan) wasFetched(w string) bool {
	w = strings.TrimPrefix(w, "./")
	return w != "" && slices.Contains(a.fetched, w)
}

// commandRisks notes the risks of one command and returns the directory
// the next command runs in.
func (a *riskScan) commandRisks(name string, args []string, dir string) string {
	operands := func(args []string) []string {
		var out []string
		flags := true
		for _, w := range args {
			switch {
			case flags && w == "--":
				flags = false
			case flags && strings.HasPrefix(w, "-") && w != "-":
			default:
				out = append(out, w)
			}
		}
		return out
	}
	switch {
	case slices.Contains(shells, name):
		for k, w := range args {
			if (w == "-c" || shortFlag(w, 'c')) && k+1 < len(args) {
				a.script(parseShell(args[k+1]), dir)
				break
			}
		}
	case name == "eval":
		a.found[RiskHiddenCode] = true
		a.script(parseShell(strings.Join(args, " ")), dir)
	case slices.Contains(downloaders, name):
		for k, w := range args {
			if (w == "-o" || w == "-O" || w == "--output" || w == "--output-document") && k+1 < len(args) && args[k+1] != "-" {
				a.fetched = append(a.fetched, strings.TrimPrefix(args[k+1], "./"))
				a.write(args[k+1], dir)
			}
		}
	case name == "rm":
		for _, w := range args {
			if w == "--" {
				break
			}
			if w == "--recursive" || shortFlag(w, 'r') || shortFlag(w, 'R') {
				a.found[RiskRecursiveDelete] = true
			}
		}
		for _, w := range operands(args) {
			a.write(w, dir)
		}
	case name == "find":
		for k, w := range args {
			if w == "-delete" {
				a.found[RiskRecursiveDelete] = true
			}
			if (w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir") && k+1 < len(args) && path.Base(args[k+1]) == "rm" {
				a.found[RiskRecursiveDelete] = true
			}
		}
	case name == "git":
		a.git(args)
	case name == "tee", name == "touch", name == "mkdir", name == "truncate":
		for _, w := range operands(args) {
			a.write(w, dir)
		}
	case name == "chmod", name == "chown", name == "chgrp":
		if ops := operands(args); len(ops) > 1 {
			for _, w := range ops[1:] {
				a.write(w, dir)
			}
		}
	case name == "cp", name == "mv", name == "ln", name == "install", name == "rsync":
		for k, w := range args {
			if w == "-t" && k+1 < len(args) {
				a.write(args[k+1], dir)
				return dir
			}
			if t, ok := strings.CutPrefix(w, "--target-directory="); ok {
				a.write(t, dir)
				return dir
			}
		}
		if ops := operands(args); len(ops) > 1 {
			a.write(ops[len(ops)-1], dir)
		}
	case name == "cd" || name == "pushd":
		ops := operands(args)
		switch {
		case len(ops) == 0:
			return a.home
		case dir == "" && !filepath.IsAbs(ops[0]):
			return ""
		}
		if p, ok := a.resolve(ops[0], dir); ok {
			return p
		}
		return ""
	}
	return dir
}

// git notes the risks of a git command line (its arguments after "git").
func (a *riskScan) git(args []string) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if slices.Contains([]string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}, args[i]) {
			i++
		}
		i++
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i], args[i+1:]
	has := func(f func(string) bool) bool { return slices.ContainsFunc(rest, f) }
	switch sub {
	case "push":
		if has(func(w string) bool {
			return w == "--force" || w == "--mirror" || strings.HasPrefix(w, "--force-with-lease") || w == "--force-if-includes" ||
				shortFlag(w, 'f') || !strings.HasPrefix(w, "-") && strings.HasPrefix(w, "+")
		}) {
			a.found[RiskHistory] = true
		}
	case "reset":
		if slices.Contains(rest, "--hard") {
			a.found[RiskHistory] = true
		}
	case "rebase":
		if !has(func(w string) bool { return w == "--abort" || w == "--quit" || w == "--show-current-patch" }) {
			a.found[RiskHistory] = true
		}
	case "filter-branch", "filter-repo":
		a.found[RiskHistory] = true
	case "clean":
		if has(func(w string) bool { return w == "--force" || shortFlag(w, 'f') }) && !has(func(w string) bool { return w == "--dry-run" || shortFlag(w, 'n') }) {
			a.found[RiskRecursiveDelete] = true
		}
	}
}

// write notes a path written to when it lies outside the project: as
// the agent gave it, or made absolute when it is relative to a directory
// the script moved to.
func (a *riskScan) write(p, dir string) {
	if p == "" || a.project == "" {
		return
	}
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-":
		return
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		return
	}
	abs, ok := a.resolve(p, dir)
	if !ok {
		return
	}
	if rel, err := filepath.Rel(a.project, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	a.found[RiskOutsideProject] = true
	if !filepath.IsAbs(p) && dir != a.project {
		p = abs // relative to a directory the script moved to
	}
	if !slices.Contains(a.outside, p) {
		a.outside = append(a.outside, p)
	}
}

// resolve makes p absolute against dir, expanding ~ and $HOME; it fails
// for a path it cannot know (another variable, a substitution, a
// relative path in an unknown directory).
func (a *riskScan) resolve(p, dir string) (string, bool) {
	for _, h := range []string{"$HOME", "${HOME}", "~"} {
		if rest, ok := strings.CutPrefix(p, h); ok && (rest == "" || rest[0] == '/') && a.home != "" {
			p = a.home + rest
		}
	}
	switch {
	case strings.HasPrefix(p, "~"):
		return "/" + p, true // another user's home: outside
	case strings.ContainsAny(p, "$`") || strings.Contains(p, substitution):
		return "", false
	case filepath.IsAbs(p):
		return filepath.Clean(p), true
	case dir == "":
		return "", false
	}
	return filepath.Join(dir, p), true
}
