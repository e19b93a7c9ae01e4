package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The preview of a tool call shown to people: what matters of its input,
// each value cut to a readable length (the cut says how much is left out),
// and literal secrets masked (mask.go).
const (
	previewMax   = 1500 // the whole preview, in characters
	commandMax   = 1200 // a shell command or patch
	valueMax     = 300  // one value: a path, a URL, a prompt
	excerptLines = 8    // lines of each side of an edit, of a written file
)

// cutText cuts s to n characters, ending "… (+K chars)" when it had more.
func cutText(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	keep := max(n-16, 1)
	i := 0
	for k := range s {
		if i == keep {
			return fmt.Sprintf("%s… (+%d chars)", s[:k], total-keep)
		}
		i++
	}
	return s
}

// decodeInput reads a tool input as generic JSON, numbers kept verbatim.
func decodeInput(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// compactJSON renders v (already masked) on one line, keys sorted.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// str returns m[key] as text: a string as is, anything else as JSON.
func str(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return compactJSON(v)
	}
}

// preview is what people see of a tool call.
type preview struct {
	// subject names the call: "Bash", "MCP tool create_issue of server
	// github".
	subject string
	// body is the readable preview of its input.
	body string
	// omitted counts the characters the body leaves out; when it is not
	// zero, full is the whole of the input's main text (secrets masked)
	// and fullName says what it is ("command").
	omitted        int
	full, fullName string
}

// cutter shortens the parts of a preview and counts what it leaves out.
type cutter struct{ omitted int }

// text cuts s to n characters, ending "…" when it had more.
func (c *cutter) text(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	keep := max(n-1, 1)
	i := 0
	for k := range s {
		if i == keep {
			c.omitted += total - keep
			return s[:k] + "…"
		}
		i++
	}
	return s
}

// lines keeps the first n lines of s, ending "… (+K more lines)".
func (c *cutter) lines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	c.omitted += utf8.RuneCountInString(strings.Join(lines[n:], "\n")) + 1
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (+%d more lines)", len(lines)-n)
}

// toolPreview returns the words naming a tool call and the readable
// preview of its input (previewOf with the default size).
func toolPreview(tool string, raw json.RawMessage) (subject, body string) {
	p := previewOf(tool, raw, previewMax)
	return p.subject, p.body
}

// previewOf returns the preview of a tool call whose body holds at most
// limit characters.
func previewOf(tool string, raw json.RawMessage, limit int) preview {
	v, err := decodeInput(raw)
	if err != nil {
		v = string(raw)
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	var c cutter
	var parts []string
	add := func(label, value string, n int) {
		if value != "" {
			parts = append(parts, label+c.text(maskText(value), n))
		}
	}
	p := preview{subject: tool, fullName: "input"}
	fullText := func(name, s string) {
		p.fullName, p.full = name, maskText(s)
	}
	switch tool {
	case "Bash":
		add("$ ", commandText(m["command"]), commandMax)
		fullText("command", commandText(m["command"]))
	case "Edit":
		add("File: ", str(m, "file_path"), valueMax)
		parts = append(parts, diffExcerpt(&c, str(m, "old_string"), str(m, "new_string")))
		if m["replace_all"] == true {
			parts = append(parts, "(every occurrence)")
		}
	case "MultiEdit":
		add("File: ", str(m, "file_path"), valueMax)
		edits, _ := m["edits"].([]any)
		for i, e := range edits {
			em, _ := e.(map[string]any)
			if i == 3 {
				parts = append(parts, fmt.Sprintf("… (+%d more edits)", len(edits)-3))
				c.omitted += utf8.RuneCountInString(compactJSON(edits[3:]))
				break
			}
			parts = append(parts, diffExcerpt(&c, str(em, "old_string"), str(em, "new_string")))
		}
	case "Write":
		add("File: ", str(m, "file_path"), valueMax)
		if s := str(m, "content"); s != "" {
			parts = append(parts, c.text(maskText(c.lines(s, excerptLines)), commandMax))
		}
		fullText("file content", str(m, "content"))
	case "NotebookEdit":
		add("Notebook: ", str(m, "notebook_path"), valueMax)
		add("Cell: ", str(m, "cell_id"), valueMax)
		if s := str(m, "new_source"); s != "" {
			parts = append(parts, c.text(maskText(c.lines(s, excerptLines)), commandMax))
		}
		fullText("cell source", str(m, "new_source"))
	case "WebFetch":
		add("URL: ", str(m, "url"), valueMax)
		add("Prompt: ", str(m, "prompt"), valueMax)
	case "WebSearch":
		add("Search: ", str(m, "query"), valueMax)
	case "Read", "Glob", "Grep":
		add("Pattern: ", str(m, "pattern"), valueMax)
		add("Path: ", str(m, "file_path")+str(m, "path"), valueMax)
	case "ExitPlanMode":
		add("", c.lines(str(m, "plan"), 2*excerptLines), commandMax)
		fullText("plan", str(m, "plan"))
	case "apply_patch":
		parts = append(parts, patchPreview(&c, str(m, "command")))
		fullText("patch", str(m, "command"))
	default:
		if server, name, ok := mcpTool(tool); ok {
			p.subject = fmt.Sprintf("MCP tool %s of server %s", name, server)
		}
		parts = append(parts, "Arguments: "+c.text(compactJSON(maskValue(m)), commandMax))
	}
	if p.full == "" {
		p.full = compactJSON(maskValue(v))
	}
	p.body = c.text(strings.Join(parts, "\n"), limit)
	p.omitted = c.omitted
	return p
}

// mcpTool splits "mcp__server__tool".
func mcpTool(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}

// diffExcerpt shows an edit as "- old" and "+ new" lines, without the
// lines both sides share at the start and the end.
func diffExcerpt(c *cutter, old, new string) string {
	ol, nl := strings.Split(old, "\n"), strings.Split(new, "\n")
	p := 0
	for p < len(ol) && p < len(nl) && ol[p] == nl[p] {
		p++
	}
	s := 0
	for s < len(ol)-p && s < len(nl)-p && ol[len(ol)-1-s] == nl[len(nl)-1-s] {
		s++
	}
	var b strings.Builder
	if p > 0 {
		b.WriteString("  … (" + unchanged(p) + ")\n")
	}
	side := func(mark string, lines []string) {
		for i, l := range lines {
			if i == excerptLines {
				fmt.Fprintf(&b, "%s … (+%d more lines)\n", mark, len(lines)-i)
				c.omitted += utf8.RuneCountInString(strings.Join(lines[i:], "\n")) + 1
				return
			}
			b.WriteString(mark + " " + c.text(maskText(l), valueMax) + "\n")
		}
	}
	side("-", ol[p:len(ol)-s])
	side("+", nl[p:len(nl)-s])
	if s > 0 {
		b.WriteString("  … (" + unchanged(s) + ")\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// unchanged says how many lines an edit keeps: "1 unchanged line".
func unchanged(n int) string {
	if n == 1 {
		return "1 unchanged line"
	}
	return fmt.Sprintf("%d unchanged lines", n)
}

// patchPreview lists the files of an apply_patch patch, in its order,
// and its first lines of change.
func patchPreview(c *cutter, patch string) string {
	var files, body []string
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "*** Begin Patch"), strings.HasPrefix(l, "*** End Patch"):
		case strings.HasPrefix(l, "*** "):
			f := strings.TrimPrefix(l, "*** ")
			f = strings.Replace(f, " File: ", " ", 1)
			files = append(files, strings.ToLower(f[:1])+f[1:])
		default:
			body = append(body, l)
		}
	}
	out := "Files: " + c.text(strings.Join(files, ", "), valueMax)
	if len(files) == 0 {
		out = ""
	}
	excerpt := c.text(maskText(c.lines(strings.Join(body, "\n"), 2*excerptLines)), commandMax)
	return strings.TrimSpace(out + "\n" + excerpt)
}
