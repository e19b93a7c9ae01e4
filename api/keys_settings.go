package api

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// KeySettings is a caller with a bearer key read from an environment
// variable.
type KeySettings struct {
	Name   string `yaml:"name"`
	KeyEnv string `yaml:"key_env"`
}

// AgentSettings is one entry of the agents section: an agent's key, and
// whether its questions reach people.
type AgentSettings struct {
	KeySettings `yaml:",inline"`
	// Questions is on (the default) or off. With off every ask of this
	// agent resolves at once as unsupported, with the reason "questions
	// are turned off for this agent", and nobody is asked: for CI jobs and
	// headless runs that must not wait on people.
	Questions QuestionsSwitch `yaml:"questions"`
	// OnBehalfOf names the people the agent acts for ("slack:U123",
	// "telegram:42"): on a route with forbid_requester they may not
	// approve its questions.
	OnBehalfOf []string `yaml:"on_behalf_of"`
	// LegacyIDs lets the agent's raw asks leave session_id and
	// tool_call_id out, as before both were required; each such ask is
	// then not idempotent, and the log says so once.
	LegacyIDs bool `yaml:"legacy_ids"`
}

// ResponderSettings is one entry of the responders section: a person (or
// gateway) answering through /v1/commands; User is the id recorded in
// answered_by (default: Name).
type ResponderSettings struct {
	KeySettings `yaml:",inline"`
	User        string `yaml:"user"`
}

// QuestionsSwitch is agents[].questions: on or off, checked as the file
// is read.
type QuestionsSwitch string

// UnmarshalYAML accepts on or off (also true and false).
func (q *QuestionsSwitch) UnmarshalYAML(n *yaml.Node) error {
	switch n.Value {
	case "on", "true":
		*q = "on"
	case "off", "false":
		*q = "off"
	default:
		return fmt.Errorf("line %d: questions: %q is not on or off", n.Line, n.Value)
	}
	return nil
}

// minSecretLen is the shortest key accepted on a bridge reachable beyond
// loopback: shorter keys can be guessed over the network.
const minSecretLen = 16

// ValidateKeys checks the agents and responders sections, reporting every
// problem: each entry has a name of its own and a key in a variable that
// is set (an unset one is a *config.UnsetEnvError); exposed (the bridge is
// reachable beyond loopback), every key has at least minSecretLen
// characters. Always, no two entries may hold the same key: the key is
// what tells the bridge who calls, so a shared key would let one agent act
// as another, or an agent answer its own questions as a responder. Errors
// name the entries and environment variables, never the secret.
func ValidateKeys(agents []AgentSettings, people []ResponderSettings, exposed bool) error {
	var p config.Problems
	keys := make([]KeySettings, len(agents))
	for i, a := range agents {
		keys[i] = a.KeySettings
	}
	p.Add(checkKeys("agents", keys))
	keys = make([]KeySettings, len(people))
	for i, r := range people {
		keys[i] = r.KeySettings
	}
	p.Add(checkKeys("responders", keys))
	p.Add(checkSecrets(agents, people, exposed))
	return errors.Join(p...)
}

// checkKeys checks a list of named keys, reporting every problem.
func checkKeys(section string, keys []KeySettings) error {
	var p config.Problems
	seen := map[string]bool{}
	for i, k := range keys {
		f := fmt.Sprintf("%s[%d]", section, i)
		switch {
		case strings.TrimSpace(k.Name) == "":
			p.Add(fmt.Errorf("%s.name: must not be empty", f))
		case seen[k.Name]:
			p.Add(fmt.Errorf("%s.name: %q appears twice", f, k.Name))
		}
		seen[k.Name] = true
		switch {
		case k.KeyEnv == "":
			p.Add(fmt.Errorf("%s.key_env: name the environment variable that holds the key", f))
		case os.Getenv(k.KeyEnv) == "":
			p.Add(&config.UnsetEnvError{Field: f + ".key_env", Var: k.KeyEnv})
		}
	}
	return errors.Join(p...)
}

// secretEntry is one configured key, named as the file writes it.
type secretEntry struct {
	field  string // "agents[0].key_env"
	env    string // the environment variable
	secret string
}

// checkSecrets checks the lengths of the keys and that no two are the same.
func checkSecrets(agents []AgentSettings, people []ResponderSettings, exposed bool) error {
	var all []secretEntry
	for i, k := range agents {
		all = append(all, secretEntry{fmt.Sprintf("agents[%d].key_env", i), k.KeyEnv, os.Getenv(k.KeyEnv)})
	}
	for i, p := range people {
		all = append(all, secretEntry{fmt.Sprintf("responders[%d].key_env", i), p.KeyEnv, os.Getenv(p.KeyEnv)})
	}
	seen := map[string]secretEntry{}
	var errs []error
	for _, e := range all {
		if e.secret == "" {
			continue // unset: checkKeys says so
		}
		if exposed && len(e.secret) < minSecretLen {
			errs = append(errs, fmt.Errorf("%s: the key in %s has %d characters; a bridge reachable beyond loopback needs keys of at least %d (e.g. openssl rand -hex 24)", e.field, e.env, len(e.secret), minSecretLen))
		}
		if first, dup := seen[e.secret]; dup {
			errs = append(errs, fmt.Errorf("%s: the key in %s is the same as the key of %s (%s); give every agent and responder a key of its own", e.field, e.env, first.field, first.env))
		}
		seen[e.secret] = e
	}
	return errors.Join(errs...)
}

// ValidateOnBehalfOf checks that each agent's on_behalf_of entry names a
// person on one of the configured channels: "channel:user-id".
func ValidateOnBehalfOf(agents []AgentSettings, channels map[string]bool, people *broker.People) error {
	var p config.Problems
	known := strings.Join(slices.Sorted(maps.Keys(channels)), ", ")
	for i, a := range agents {
		for k, e := range a.OnBehalfOf {
			f := fmt.Sprintf("agents[%d].on_behalf_of[%d]", i, k)
			ch, user, ok := strings.Cut(e, ":")
			switch {
			case ch == "person" && people.Person(user) == nil:
				p.Add(fmt.Errorf("%s: %q names no person listed under people", f, e))
			case ch == "person":
			case ch == "group" || ch == "role":
				p.Add(fmt.Errorf("%s: %q names a %s: an agent acts for people, written person:person-id or channel:user-id", f, e, ch))
			case !ok || strings.TrimSpace(ch) == "" || strings.TrimSpace(user) == "":
				p.Add(fmt.Errorf("%s: %q is not \"channel:user-id\" (e.g. \"slack:U0123\")", f, e))
			case strings.ContainsAny(e, " \t") || strings.Contains(user, ":"):
				p.Add(fmt.Errorf("%s: %q is not \"channel:user-id\": name one person, without spaces or roles", f, e))
			case !channels[ch]:
				p.Add(fmt.Errorf("%s: channel %q is not configured (configured: %s)", f, ch, known))
			}
		}
	}
	return errors.Join(p...)
}

// AgentKeys returns the agents' keys, read from their variables.
func AgentKeys(agents []AgentSettings) []Key {
	out := make([]Key, 0, len(agents))
	for _, k := range agents {
		out = append(out, Key{Name: k.Name, Secret: os.Getenv(k.KeyEnv), RequireIDs: !k.LegacyIDs})
	}
	return out
}

// ResponderKeys returns the responders' keys, read from their variables.
func ResponderKeys(people []ResponderSettings) []Key {
	out := make([]Key, 0, len(people))
	for _, k := range people {
		out = append(out, Key{Name: k.Name, User: k.User, Secret: os.Getenv(k.KeyEnv)})
	}
	return out
}

// QuestionsOff returns the names of the agents whose questions are off.
func QuestionsOff(agents []AgentSettings) map[string]bool {
	out := map[string]bool{}
	for _, a := range agents {
		if a.Questions == "off" {
			out[a.Name] = true
		}
	}
	return out
}

// OnBehalfOf maps each agent to the people it acts for.
func OnBehalfOf(agents []AgentSettings) map[string][]string {
	out := map[string][]string{}
	for _, a := range agents {
		if len(a.OnBehalfOf) > 0 {
			out[a.Name] = a.OnBehalfOf
		}
	}
	return out
}
