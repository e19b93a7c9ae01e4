package broker

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The kinds of approval rules.
const (
	// RuleExact matches a command or a path equal to the pattern.
	RuleExact = "exact"
	// RulePrefix matches a command that starts with the pattern,
	// followed by its end or a space and arguments without any shell
	// operator (ShellOperators).
	RulePrefix = "prefix"
	// RuleGlob matches the path of a file tool with path.Match.
	RuleGlob = "glob"
)

// RuleChannel is the channel of the responder that answers a question
// allowed by a rule: {channel "rule", user "rule:<id>"}.
const RuleChannel = "rule"

// Limits of a rule's fields.
const (
	// MinPrefixChars is the shortest prefix rule: "ls" would allow far
	// more than anyone means to.
	MinPrefixChars  = 3
	maxPatternChars = 1000
	maxProjectChars = 1000
	maxRuleTool     = 64
)

// ShellOperators are the texts that end or chain a command, redirect it
// or run another inside it. A prefix rule never contains one, and never
// matches a command whose arguments hold one: "npm test; curl x | sh"
// is not "npm test".
var ShellOperators = []string{";", "&", "|", "$(", "`", ">", "<", "\n", "\r"}

// Rule is an approval rule the bridge keeps: a tool call it matches is
// allowed without asking anyone, for every agent (Agent "") or one, by
// every hook that asks the bridge (app/hooks). A person made it by
// picking "Always allow" on a question; it stays until revoked.
type Rule struct {
	// ID numbers the rules of a store from 1; an id is never reused.
	ID int64 `json:"id"`
	// Agent is the agent the rule is for; "" for every agent.
	Agent string `json:"agent,omitempty"`
	// Tool is the tool name of the calls it allows: Bash, or one of the
	// file tools Edit, Write, MultiEdit.
	Tool string `json:"tool"`
	// Kind is RuleExact, RulePrefix (Bash only) or RuleGlob (file
	// tools only).
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
	// Project is the working directory the rule was made in; it allows
	// calls made there or below (and, for a path, paths there or below).
	// "" allows them anywhere.
	Project string `json:"project,omitempty"`
	// Question is the question whose answer made the rule, if any.
	Question string    `json:"question,omitempty"`
	By       Responder `json:"by"`
	At       time.Time `json:"at"`
	Reason   string    `json:"reason,omitempty"`
	// Revoked is when the rule was revoked, and RevokedBy who did; a
	// revoked rule matches nothing and is kept for the record.
	Revoked   *time.Time `json:"revoked,omitempty"`
	RevokedBy *Responder `json:"revoked_by,omitempty"`
}

// RuleFilter selects rules for RuleStore.Rules: those that apply to
// Agent (its own and the every-agent ones; every rule when empty),
// without the revoked ones unless Revoked.
type RuleFilter struct {
	Agent   string
	Revoked bool
}

// Keep reports whether f selects r.
func (f RuleFilter) Keep(r Rule) bool {
	return (f.Agent == "" || r.Agent == "" || r.Agent == f.Agent) && (f.Revoked || r.Revoked == nil)
}

// Applies reports whether r is in force for agent's calls.
func (r Rule) Applies(agent string) bool {
	return r.Revoked == nil && (r.Agent == "" || r.Agent == agent)
}

// commandTools are the tools whose calls a rule reads as a shell
// command (tool_input.command); pathTools those it reads as a file path
// (tool_input.file_path).
var (
	commandTools = []string{"Bash"}
	pathTools    = []string{"Edit", "Write", "MultiEdit"}
)

func isCommandTool(t string) bool { return slices.Contains(commandTools, t) }
func isPathTool(t string) bool    { return slices.Contains(pathTools, t) }

// Check checks a rule about to be stored, and returns a *FieldError
// naming the first field that is wrong: a tool rules do not cover, an
// unknown kind, a glob for a command or a prefix for a path, an empty or
// unreadable pattern, a prefix shorter than MinPrefixChars or holding a
// shell operator, a project that is not an absolute path, no one who
// made it. Check changes nothing.
func (r *Rule) Check() error {
	switch {
	case r.Tool == "":
		return fieldErr("tool", "is missing: name the tool the rule allows (%s)", strings.Join(append(commandTools, pathTools...), ", "))
	case !isCommandTool(r.Tool) && !isPathTool(r.Tool):
		return fieldErr("tool", "%q is not a tool rules cover: use one of %s", cutRunes(r.Tool, maxRuleTool), strings.Join(append(commandTools, pathTools...), ", "))
	case r.Kind != RuleExact && r.Kind != RulePrefix && r.Kind != RuleGlob:
		return fieldErr("kind", "%q is not a kind of rule: use exact, prefix or glob", cutRunes(r.Kind, maxRuleTool))
	case r.Kind == RuleGlob && !isPathTool(r.Tool):
		return fieldErr("kind", "glob is for the file tools (%s), not %s: use exact or prefix", strings.Join(pathTools, ", "), r.Tool)
	case r.Kind == RulePrefix && !isCommandTool(r.Tool):
		return fieldErr("kind", "prefix is for commands (Bash), not %s: use exact or glob", r.Tool)
	case strings.TrimSpace(r.Pattern) == "":
		return fieldErr("pattern", "is empty")
	case utf8.RuneCountInString(r.Pattern) > maxPatternChars:
		return fieldErr("pattern", "is longer than %d characters", maxPatternChars)
	}
	kind := kindLine
	if r.Kind == RuleExact && isCommandTool(r.Tool) {
		kind = kindProse // an exact command may span lines
	}
	if err := checkText("pattern", r.Pattern, kind); err != nil {
		return err
	}
	if err := r.checkPattern(); err != nil {
		return err
	}
	if r.Project != "" {
		if !path.IsAbs(r.Project) || path.Clean(r.Project) != r.Project || len(r.Project) > maxProjectChars {
			return fieldErr("project", "%q is not a clean absolute directory (such as /home/ana/app)", cutRunes(r.Project, 120))
		}
		if err := checkText("project", r.Project, kindLine); err != nil {
			return err
		}
	}
	if err := checkText("agent", r.Agent, kindName); err != nil {
		return err
	}
	if len(r.Agent) > MaxIDFieldChars {
		return fieldErr("agent", "is longer than %d characters", MaxIDFieldChars)
	}
	if _, err := checkReason(r.Reason); err != nil {
		return err
	}
	if r.By.Channel == "" || r.By.User == "" {
		return fieldErr("by", "who made the rule is missing (channel and user)")
	}
	return nil
}

// checkPattern checks the pattern against its kind.
func (r *Rule) checkPattern() error {
	p := r.Pattern
	switch {
	case strings.TrimSpace(p) != p:
		return fieldErr("pattern", "%q has spaces at its ends", cutRunes(p, 120))
	case r.Kind == RulePrefix && utf8.RuneCountInString(p) < MinPrefixChars:
		return fieldErr("pattern", "prefix %q is shorter than %d characters: it would allow too much", p, MinPrefixChars)
	case r.Kind == RulePrefix:
		if op := shellOperator(p); op != "" {
			return fieldErr("pattern", "prefix %q holds the shell operator %q: a prefix names one command and its first arguments", cutRunes(p, 120), op)
		}
	case isPathTool(r.Tool):
		if !path.IsAbs(p) && r.Project == "" {
			return fieldErr("pattern", "%q is a relative path: give an absolute one, or a project it is relative to", cutRunes(p, 120))
		}
		if _, err := path.Match(p, ""); err != nil {
			return fieldErr("pattern", "%q is not a glob path.Match reads: %v", cutRunes(p, 120), err)
		}
		if r.Kind == RuleGlob && (p == "*" || p == "/*" || strings.HasPrefix(p, "/*")) {
			return fieldErr("pattern", "%q allows writing anywhere: name a directory first", p)
		}
	}
	return nil
}

// shellOperator returns the first shell operator in s, or "".
func shellOperator(s string) string {
	best, at := "", len(s)
	for _, op := range ShellOperators {
		if i := strings.Index(s, op); i >= 0 && i < at {
			best, at = op, i
		}
	}
	return best
}

// cutRunes shortens s to n characters for an error message.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// Describe says what r allows, for people: "Bash commands starting
// `npm test` in /home/ana/app".
func (r Rule) Describe() string {
	var s string
	switch r.Kind {
	case RulePrefix:
		s = fmt.Sprintf("%s commands starting `%s`", r.Tool, r.Pattern)
	case RuleGlob:
		s = fmt.Sprintf("%s of paths matching `%s`", r.Tool, r.Pattern)
	default:
		s = fmt.Sprintf("%s `%s`", r.Tool, r.Pattern)
	}
	if r.Project != "" {
		s += " in " + r.Project
	}
	return s
}
