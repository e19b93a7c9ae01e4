package api

import "github.com/askbridge/askbridge/broker"

// The ask contract: an agent names each ask by its session and its call
// (session_id, tool_call_id), so that asking again after a lost
// connection finds the same question instead of making a second one.
// An agent with a key must send both; agents[].legacy_ids lets an
// existing agent leave them out while it is changed, and the log says so
// once. The keyless agent of a bridge on loopback (LocalAgent) is one
// person's own tool and keeps them optional. The SDK, the CLI, the MCP
// server and the hooks always send both.

// errIDs are the refusals of an ask without ids, naming the field.
var (
	errNoSession = &broker.FieldError{Field: "session_id", Message: "is required for this agent: name the run that asks (any id that stays the same for it, such as a job or conversation id), so that asking again after a lost connection finds the same question (agents[].legacy_ids: true allows leaving it out for now)"}
	errNoCall    = &broker.FieldError{Field: "tool_call_id", Message: "is required for this agent: name this ask within its session (a new id per question, the same when it is sent again after a lost connection) (agents[].legacy_ids: true allows leaving it out for now)"}
)

// checkIDs refuses an ask of agent without session_id or tool_call_id,
// unless the agent has legacy ids or no key. It changes nothing.
func (s *Server) checkIDs(agent string, req *broker.AskRequest) error {
	if req.SessionID != "" && req.ToolCallID != "" {
		return nil
	}
	k, ok := s.agentKey(agent)
	if !ok {
		return nil // the keyless agent on loopback
	}
	if k.RequireIDs {
		if req.SessionID == "" {
			return errNoSession
		}
		return errNoCall
	}
	if _, warned := s.legacyWarned.LoadOrStore(agent, true); !warned {
		s.log.Warn("an ask without session_id or tool_call_id, allowed by agents[].legacy_ids: asking again after a lost connection makes a second question; send both, then remove legacy_ids (it goes in a later release)",
			"agent", agent)
	}
	return nil
}

// agentKey returns the key of the agent named name.
func (s *Server) agentKey(name string) (Key, bool) {
	for _, k := range s.agents {
		if k.Name == name {
			return k.Key, true
		}
	}
	return Key{}, false
}
