package main

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// AgentConfig is an agent of the bridge: its key, and whether its
// questions reach people.
type AgentConfig struct {
	KeyConfig `yaml:",inline"`
	// Questions is on (the default) or off. With off every ask of this
	// agent resolves at once as unsupported, with the reason "questions
	// are turned off for this agent", and nobody is asked: for CI jobs and
	// headless runs that must not wait on people.
	Questions QuestionsSwitch `yaml:"questions"`
	// OnBehalfOf names the people the agent acts for ("slack:U123",
	// "telegram:42"): on a route with forbid_requester they may not
	// approve its questions.
	OnBehalfOf []string `yaml:"on_behalf_of"`
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

// agentKeys returns the keys of the agents, for the checks every key gets.
func (c *Config) agentKeys() []KeyConfig {
	out := make([]KeyConfig, len(c.Agents))
	for i, a := range c.Agents {
		out[i] = a.KeyConfig
	}
	return out
}

// questionsOff returns the names of the agents whose questions are off.
func (c *Config) questionsOff() map[string]bool {
	out := map[string]bool{}
	for _, a := range c.Agents {
		if a.Questions == "off" {
			out[a.Name] = true
		}
	}
	return out
}
