package broker

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// ToolCall is one call of an agent's tool that a rule may allow: the
// tool's name, the part of its input rules read, and the working
// directory it runs in. Risky says that the caller found a risk in it (a
// command that deletes a tree, fetches code and runs it, writes outside
// the project…): no rule allows a risky call, whatever it says.
type ToolCall struct {
	Tool  string    `json:"tool"`
	Input ToolInput `json:"input"`
	Cwd   string    `json:"cwd,omitempty"`
	Risky bool      `json:"risky,omitempty"`
}

// ToolInput is the part of a tool's input that rules read: the command
// of Bash, the file_path of a file tool. Its JSON is the tool's whole
// input object, as the agent sent it; the other keys are left.
type ToolInput struct {
	Command  string `json:"command,omitempty"`
	FilePath string `json:"file_path,omitempty"`
}

// UnmarshalJSON reads command and file_path from a tool's input object
// and leaves its other keys; either, when present, must be a string.
func (in *ToolInput) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("the tool input is not an object: %w", err)
	}
	var out ToolInput
	for key, dst := range map[string]*string{"command": &out.Command, "file_path": &out.FilePath} {
		if raw, ok := m[key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, dst); err != nil {
				return fmt.Errorf("the tool input's %s is not a string", key)
			}
		}
	}
	*in = out
	return nil
}

// Map returns the input as MatchRule reads it.
func (in ToolInput) Map() map[string]any {
	m := map[string]any{}
	if in.Command != "" {
		m["command"] = in.Command
	}
	if in.FilePath != "" {
		m["file_path"] = in.FilePath
	}
	return m
}

// Check checks a call before it is matched: a tool, an input with a
// command or a path, and an absolute working directory when one is
// given.
func (c *ToolCall) Check() error {
	switch {
	case c.Tool == "":
		return fieldErr("tool", "is missing")
	case c.Input.Command == "" && c.Input.FilePath == "":
		return fieldErr("input", "is missing: send the tool's input object, with its command or file_path")
	case c.Cwd != "" && !path.IsAbs(c.Cwd):
		return fieldErr("cwd", "%q is not an absolute directory", cutRunes(c.Cwd, 120))
	}
	return nil
}

// MatchRule returns the first rule of rules, by id, that allows agent's
// call of tool with input in cwd, or nil. A revoked rule, one for
// another agent or another tool, or one made for a project that cwd is
// not in allows nothing. A risky call must never be matched: callers
// check risks first and do not ask (ToolCall.Risky).
//
// exact: the whole command (Bash) or the absolute path (file tools)
// equals the pattern. prefix: the command starts with the pattern,
// followed by its end or a space, and the rest holds no shell operator.
// glob: the absolute path (made so against cwd) matches the pattern
// with path.Match, and lies within the rule's project when it has one.
func MatchRule(rules []Rule, agent, tool string, input map[string]any, cwd string) *Rule {
	var found *Rule
	for i := range rules {
		r := &rules[i]
		if r.Tool != tool || !r.Applies(agent) || !within(cwd, r.Project) {
			continue
		}
		if found != nil && found.ID < r.ID {
			continue
		}
		if ruleMatches(r, input, cwd) {
			found = r
		}
	}
	return found
}

// within reports whether dir is project or below it; every dir is
// within "".
func within(dir, project string) bool {
	if project == "" {
		return true
	}
	if dir == "" || !path.IsAbs(dir) {
		return false
	}
	dir = path.Clean(dir)
	return dir == project || strings.HasPrefix(dir, strings.TrimSuffix(project, "/")+"/")
}

func ruleMatches(r *Rule, input map[string]any, cwd string) bool {
	if isCommandTool(r.Tool) {
		cmd, ok := input["command"].(string)
		if !ok {
			return false
		}
		switch r.Kind {
		case RuleExact:
			return strings.Trim(cmd, " \t") == r.Pattern
		case RulePrefix:
			return PrefixMatches(r.Pattern, cmd)
		}
		return false
	}
	p, ok := input["file_path"].(string)
	if !ok || p == "" {
		return false
	}
	if !path.IsAbs(p) {
		if cwd == "" {
			return false
		}
		p = path.Join(cwd, p)
	}
	p = path.Clean(p)
	if !within(p, r.Project) {
		return false
	}
	pattern := r.Pattern
	if !path.IsAbs(pattern) {
		pattern = path.Join(r.Project, pattern)
	}
	switch r.Kind {
	case RuleExact:
		return p == path.Clean(pattern)
	case RuleGlob:
		ok, err := path.Match(pattern, p)
		return err == nil && ok
	}
	return false
}

// PrefixMatches reports whether command is prefix followed by its end or
// a space and arguments that hold no shell operator (ShellOperators).
// Spaces and tabs around the command do not count.
func PrefixMatches(prefix, command string) bool {
	if len(prefix) < MinPrefixChars || shellOperator(prefix) != "" {
		return false
	}
	command = strings.Trim(command, " \t")
	rest, ok := strings.CutPrefix(command, prefix)
	if !ok {
		return false
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	return shellOperator(rest) == ""
}
