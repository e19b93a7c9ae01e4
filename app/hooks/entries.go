package hooks

import (
	"encoding/json"
	"fmt"
)

// The "hooks" section that Claude Code and Codex share:
//
//	{"hooks": {"PermissionRequest": [
//	  {"matcher": "*", "hooks": [{"type": "command", "command": "…", "timeout": 1800}]}
//	]}}
//
// An event holds matcher groups; a group holds handlers. The bridge's
// handler is known by its command string: install adds a group for each
// event that has no handler with that command, uninstall removes exactly
// the handlers with that command (and a group, an event or the section
// that only they filled).

// hookHandler is the handler the bridge writes, its keys in this order.
// A report hook runs in the background (async) and shows no status.
type hookHandler struct {
	Type          string `json:"type"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout"`
	Async         bool   `json:"async,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
}

// hookGroup is the matcher group the bridge writes; events without
// matchers (Stop) get none.
type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookHandler `json:"hooks"`
}

// hookSections reads the "hooks" object of the settings.
func hookSections(settings jsonObject) (jsonObject, error) {
	raw, ok := settings.get("hooks")
	if !ok {
		return jsonObject{}, nil
	}
	return parseObject(raw, `"hooks"`)
}

// eventGroups reads the matcher groups of one event.
func eventGroups(hooks jsonObject, event string) ([]json.RawMessage, error) {
	raw, ok := hooks.get(event)
	if !ok {
		return nil, nil
	}
	return parseArray(raw, fmt.Sprintf("hooks.%s", event))
}

// groupHandlers reads one matcher group and its handlers.
func groupHandlers(raw json.RawMessage, what string) (jsonObject, []json.RawMessage, error) {
	g, err := parseObject(raw, what)
	if err != nil {
		return nil, nil, err
	}
	hraw, ok := g.get("hooks")
	if !ok {
		return g, nil, nil
	}
	hs, err := parseArray(hraw, what+".hooks")
	return g, hs, err
}

// isCommand reports whether a handler runs cmd.
func isCommand(raw json.RawMessage, cmd string) bool {
	var h struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	return json.Unmarshal(raw, &h) == nil && h.Type == "command" && h.Command == cmd
}

// addHooks adds a group with the bridge's handler to each event of
// entries that has none yet, and says what it found and did.
func addHooks(settings *jsonObject, entries []hookEntry, cmd string) (report []string, changed bool, err error) {
	hooks, err := hookSections(*settings)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		groups, err := eventGroups(hooks, e.event)
		if err != nil {
			return nil, false, err
		}
		found := false
		for i, g := range groups {
			_, hs, err := groupHandlers(g, fmt.Sprintf("hooks.%s[%d]", e.event, i))
			if err != nil {
				return nil, false, err
			}
			for _, h := range hs {
				found = found || isCommand(h, cmd)
			}
		}
		if found {
			report = append(report, fmt.Sprintf("%s hook already there; not changed", e.event))
			continue
		}
		h := hookHandler{Type: "command", Command: cmd, Timeout: hookInstallTimeout, StatusMessage: hookStatusMessage}
		how := fmt.Sprintf("timeout %d s", h.Timeout)
		if e.async {
			h = hookHandler{Type: "command", Command: cmd, Timeout: hookReportTimeout, Async: true}
			how = fmt.Sprintf("timeout %d s, in the background", h.Timeout)
		}
		if e.matcher != "" {
			how = fmt.Sprintf("matcher %q, %s", e.matcher, how)
		}
		group := hookGroup{Matcher: e.matcher, Hooks: []hookHandler{h}}
		hooks.set(e.event, rawArray(append(groups, marshalNoEscape(group))))
		report = append(report, fmt.Sprintf("added %s hook (%s): %s", e.event, how, cmd))
		changed = true
	}
	if changed {
		settings.set("hooks", hooks.raw())
	}
	return report, changed, nil
}

// removeHooks removes the handlers that run cmd from the events of
// entries, and a group, an event or the "hooks" section left empty by
// that.
func removeHooks(settings *jsonObject, entries []hookEntry, cmd string) (report []string, changed bool, err error) {
	if _, ok := settings.get("hooks"); !ok {
		return nil, false, nil
	}
	hooks, err := hookSections(*settings)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		groups, err := eventGroups(hooks, e.event)
		if err != nil {
			return nil, false, err
		}
		var kept []json.RawMessage
		removed := 0
		for i, g := range groups {
			obj, hs, err := groupHandlers(g, fmt.Sprintf("hooks.%s[%d]", e.event, i))
			if err != nil {
				return nil, false, err
			}
			var rest []json.RawMessage
			for _, h := range hs {
				if isCommand(h, cmd) {
					removed++
					continue
				}
				rest = append(rest, h)
			}
			switch {
			case len(rest) == len(hs):
				kept = append(kept, g)
			case len(rest) > 0:
				obj.set("hooks", rawArray(rest))
				kept = append(kept, obj.raw())
			}
		}
		if removed == 0 {
			continue
		}
		if len(kept) == 0 {
			hooks.remove(e.event)
		} else {
			hooks.set(e.event, rawArray(kept))
		}
		report = append(report, fmt.Sprintf("removed %s hook: %s", e.event, cmd))
		changed = true
	}
	if !changed {
		return nil, false, nil
	}
	if len(hooks) == 0 {
		settings.remove("hooks")
	} else {
		settings.set("hooks", hooks.raw())
	}
	return report, true, nil
}
