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

// cutLines keeps the first n lines of s, ending "… (+K more lines)".
func cutLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (+%d more lines)", len(lines)-n)
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

// toolPreview returns the words naming a tool call ("Bash", "MCP tool
// create_issue of server github") and the readable preview of its input.
func toolPreview(tool string, raw json.RawMessage) (subject, body string) {
	v, err := decodeInput(raw)
	if err != nil {
		v = string(raw)
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	var parts []string
	add := func(label, value string, n int) {
		if value != "" {
			parts = append(parts, label+cutText(maskText(value), n))
		}
	}
	subject = tool
	switch tool {
	case "Bash":
		add("$ ", str(m, "command"), commandMax)
	case "Edit":
		add("File: ", str(m, "file_path"), valueMax)
		parts = append(parts, diffExcerpt(str(m, "old_string"), str(m, "new_string")))
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
				break
			}
			parts = append(parts, diffExcerpt(str(em, "old_string"), str(em, "new_string")))
		}
	case "Write":
		add("File: ", str(m, "file_path"), valueMax)
		if c := str(m, "content"); c != "" {
			parts = append(parts, cutText(maskText(cutLines(c, excerptLines)), commandMax))
		}
	case "NotebookEdit":
		add("Notebook: ", str(m, "notebook_path"), valueMax)
		add("Cell: ", str(m, "cell_id"), valueMax)
		if c := str(m, "new_source"); c != "" {
			parts = append(parts, cutText(maskText(cutLines(c, excerptLines)), commandMax))
		}
	case "WebFetch":
		add("URL: ", str(m, "url"), valueMax)
		add("Prompt: ", str(m, "prompt"), valueMax)
	case "WebSearch":
		add("Search: ", str(m, "query"), valueMax)
	case "Read", "Glob", "Grep":
		add("Pattern: ", str(m, "pattern"), valueMax)
		add("Path: ", str(m, "file_path")+str(m, "path"), valueMax)
	case "ExitPlanMode":
		add("", cutLines(str(m, "plan"), 2*excerptLines), commandMax)
	case "apply_patch":
		parts = append(parts, patchPreview(str(m, "command")))
	default:
		if server, name, ok := mcpTool(tool); ok {
			subject = fmt.Sprintf("MCP tool %s of server %s", name, server)
		}
		parts = append(parts, "Arguments: "+cutText(compactJSON(maskValue(m)), commandMax))
	}
	return subject, cutText(strings.Join(parts, "\n"), previewMax)
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
func diffExcerpt(old, new string) string {
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
		fmt.Fprintf(&b, "  … (%d unchanged lines)\n", p)
	}
	side := func(mark string, lines []string) {
		for i, l := range lines {
			if i == excerptLines {
				fmt.Fprintf(&b, "%s … (+%d more lines)\n", mark, len(lines)-i)
				return
			}
			b.WriteString(mark + " " + cutText(maskText(l), valueMax) + "\n")
		}
	}
	side("-", ol[p:len(ol)-s])
	side("+", nl[p:len(nl)-s])
	if s > 0 {
		fmt.Fprintf(&b, "  … (%d unchanged lines)\n", s)
	}
	return strings.TrimRight(b.String(), "\n")
}

// patchPreview lists the files of an apply_patch patch, in its order,
// and its first lines of change.
func patchPreview(patch string) string {
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
	out := "Files: " + cutText(strings.Join(files, ", "), valueMax)
	if len(files) == 0 {
		out = ""
	}
	excerpt := cutText(maskText(cutLines(strings.Join(body, "\n"), 2*excerptLines)), commandMax)
	return strings.TrimSpace(out + "\n" + excerpt)
}
