package mcp

import (
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultSessionsPerAgent is the cap on one agent's open HTTP sessions
// when Config sets none.
const DefaultSessionsPerAgent = 16

// SessionsSetting is the configuration key of the bridge that sets
// Config.SessionsPerAgent; the 429 names it.
const SessionsSetting = "limits.mcp_sessions_per_agent"

// slotHeader carries, inside the server, the id of the slot that the
// request opening a session holds, so that the session takes that slot
// as it initializes.
const slotHeader = "X-Askbridge-Mcp-Slot"

// sessions keeps the HTTP sessions of each agent within a cap. An
// initialize request without a session id takes a slot of its agent before the SDK makes a
// session for it; when the agent has no free slot, its least recently
// used idle session (no request under way) is closed to make one, and
// when all of them are busy the request is refused. The session takes
// the slot as it handles initialize (bind); a request that made no
// session gives its slot back.
type sessions struct {
	limit int

	mu     sync.Mutex
	tick   uint64 // orders the sessions' last use
	byID   map[string]*liveSession
	agents map[string]*agentSessions
	slots  map[string]*slot
}

// agentSessions are the sessions of one agent.
type agentSessions struct {
	live map[string]*liveSession
	// opening counts the slots of requests that may still make a session.
	opening int
}

type liveSession struct {
	ss    *sdk.ServerSession
	agent string
	// busy counts the HTTP requests of the session under way.
	busy int
	// used is the tick of its last request's start or end.
	used uint64
	// closing is set once the session is evicted: its requests get 404.
	closing bool
}

// slot is held by a request that may make a session.
type slot struct {
	id, agent string
	// session is the session made with the slot, once bound.
	session *liveSession
}

// sessionLimitError refuses a new session of an agent whose sessions are
// all busy.
type sessionLimitError struct {
	agent string
	limit int
}

func (e *sessionLimitError) Error() string {
	return fmt.Sprintf("agent %q already has %d MCP sessions with a request under way, the most allowed (%s); end a session (DELETE /mcp) or try again when a call returns",
		e.agent, e.limit, SessionsSetting)
}

func newSessions(limit int) *sessions {
	return &sessions{limit: limit, byID: map[string]*liveSession{}, agents: map[string]*agentSessions{}, slots: map[string]*slot{}}
}

// full reports whether the agent holds all its slots.
func (m *sessions) full(agent string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.agents[agent]
	return a != nil && len(a.live)+a.opening >= m.limit
}

// admit gives the agent a slot for a new session. When the agent holds
// all its slots, its least recently used idle session is taken out of the
// count and returned, for the caller to close; when none is idle, admit
// refuses with a *sessionLimitError.
func (m *sessions) admit(agent string) (*slot, *liveSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.agents[agent]
	if a == nil {
		a = &agentSessions{live: map[string]*liveSession{}}
		m.agents[agent] = a
	}
	var victim *liveSession
	if len(a.live)+a.opening >= m.limit {
		for _, ls := range a.live {
			if ls.busy == 0 && (victim == nil || ls.used < victim.used) {
				victim = ls
			}
		}
		if victim == nil {
			m.dropIfEmpty(agent)
			return nil, nil, &sessionLimitError{agent: agent, limit: m.limit}
		}
		victim.closing = true
		delete(a.live, victim.ss.ID())
	}
	a.opening++
	sl := &slot{id: randomHex(8), agent: agent}
	m.slots[sl.id] = sl
	return sl, victim, nil
}

// bind gives the slot named id to ss, the session its request made; the
// session starts busy with that request.
func (m *sessions) bind(id string, ss *sdk.ServerSession) {
	if id == "" || ss.ID() == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sl := m.slots[id]
	if sl == nil || sl.session != nil {
		return
	}
	m.tick++
	ls := &liveSession{ss: ss, agent: sl.agent, busy: 1, used: m.tick}
	a := m.agents[sl.agent]
	a.opening--
	a.live[ss.ID()] = ls
	m.byID[ss.ID()] = ls
	sl.session = ls
}

// done ends the request that held sl: its session, if it made one, is
// idle unless other requests are under way; else the slot is free again.
func (m *sessions) done(sl *slot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.slots, sl.id)
	if ls := sl.session; ls != nil {
		m.tick++
		ls.busy--
		ls.used = m.tick
		return
	}
	m.agents[sl.agent].opening--
	m.dropIfEmpty(sl.agent)
}

// entry is what enter found of a session.
type entry int

const (
	// untracked: no session of this server's count (the SDK answers).
	untracked entry = iota
	// entered: the request counts as under way until leave.
	entered
	// gone: the session is closing, or another agent's: answer 404.
	gone
)

// enter counts a request of the agent in the session named id.
func (m *sessions) enter(id, agent string) entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	ls := m.byID[id]
	switch {
	case ls == nil:
		return untracked
	case ls.closing || ls.agent != agent:
		return gone
	}
	m.tick++
	ls.busy++
	ls.used = m.tick
	return entered
}

// leave ends a request that enter counted.
func (m *sessions) leave(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ls := m.byID[id]; ls != nil {
		m.tick++
		ls.busy--
		ls.used = m.tick
	}
}

// forget drops the session named id, which is closed.
func (m *sessions) forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgetLocked(id)
}

func (m *sessions) forgetLocked(id string) {
	ls := m.byID[id]
	if ls == nil {
		return
	}
	delete(m.byID, id)
	if a := m.agents[ls.agent]; a != nil && a.live[id] == ls {
		delete(a.live, id)
		m.dropIfEmpty(ls.agent)
	}
}

// prune drops the sessions that are no longer open (the SDK closed them
// after SessionTimeout without requests). open holds those that were,
// listed after mark returned since: a session used after that may be
// newer than the list.
func (m *sessions) prune(open map[*sdk.ServerSession]bool, since uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, ls := range m.byID {
		if !open[ls.ss] && !ls.closing && ls.busy == 0 && ls.used <= since {
			m.forgetLocked(id)
		}
	}
}

// mark returns the tick before the open sessions are listed for prune.
func (m *sessions) mark() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tick
}

// tracked reports whether any session is counted.
func (m *sessions) tracked() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID) > 0
}

func (m *sessions) dropIfEmpty(agent string) {
	if a := m.agents[agent]; a != nil && len(a.live) == 0 && a.opening == 0 {
		delete(m.agents, agent)
	}
}
