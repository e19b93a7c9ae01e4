package hooks

import (
	"regexp"
	"sort"
	"strings"
)

// Masking hides literal secrets from the preview and nothing else: the
// approver must see every character that will run. A value is masked only
// when it is a whole literal (a quoted string or a bare word, ended by a
// space, a quote, a comma, a separator or a closing bracket) with no shell
// syntax in it: a value holding $, a backtick, |, ;, &, <, >, a backslash
// or a newline may expand, substitute, redirect or run something, and is
// shown as is. So `API_TOKEN=abc123 make` reads `API_TOKEN=*** make`, but
// `API_TOKEN="$(curl … | sh)" make` reads exactly as it runs.

const secretMask = "***"

// shellSyntax are the characters that make a value more than a literal.
const shellSyntax = "$`|;&<>\n\\"

// secretWords are the parts of a key or flag name that mark its value as
// secret.
const secretWords = `(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|cookie)`

var (
	secretKeyRe = regexp.MustCompile(`(?i)^[\w.-]*` + secretWords + `[\w.-]*$`)
	// NAME=value, name: value, "name": "value", --name=value, ?name=value:
	// the name and the separator; the value follows.
	secretAssignRe = regexp.MustCompile(`(?i)[\w.-]*` + secretWords + `[\w.-]*["']?[ \t]*[:=][ \t]*`)
	// --name value
	secretFlagRe = regexp.MustCompile(`(?i)\s--?[\w-]*` + secretWords + `[\w-]*[ \t]+`)
	// A scheme word before a credential: "Bearer xyz".
	secretSchemeRe = regexp.MustCompile(`(?i)^(?:bearer|basic|token)[ \t]+`)
	// Bearer xyz anywhere.
	secretBearerRe = regexp.MustCompile(`(?i)\b(?:bearer|basic)\s+`)
	// The password of a URL: scheme://user:password@host.
	secretURLUserRe = regexp.MustCompile(`://[^/\s:@]+:`)
)

// literal reports whether v holds no shell syntax.
func literal(v string) bool { return !strings.ContainsAny(v, shellSyntax) }

// boundary reports whether a value ending at i of s ends a whole word.
func boundary(s string, i int) bool {
	return i == len(s) || strings.IndexByte(" \t\n,;&'\")]}", s[i]) >= 0
}

// span is a run [start, end) of the text that a mask replaces.
type span struct{ start, end int }

// maskText masks the literal secrets of free text (a shell command, a
// file excerpt): values assigned to secret-looking names, secret flags'
// arguments, bearer tokens and URL passwords.
func maskText(s string) string {
	spans := secretSpans(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(secretMask)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// secretSpans finds the literal secrets of s, in order, overlapping runs
// merged.
func secretSpans(s string) []span {
	var spans []span
	valueAfter := func(re *regexp.Regexp, flag bool) {
		for _, m := range re.FindAllStringIndex(s, -1) {
			if end, ok := quotedOrBare(s, m[1], flag); ok {
				spans = append(spans, span{m[1], end})
			}
		}
	}
	valueAfter(secretAssignRe, false)
	valueAfter(secretFlagRe, true)
	for _, m := range secretBearerRe.FindAllStringIndex(s, -1) {
		end := m[1]
		for end < len(s) && isTokenByte(s[end]) {
			end++
		}
		if end-m[1] >= 8 && boundary(s, end) {
			spans = append(spans, span{m[1], end})
		}
	}
	for _, m := range secretURLUserRe.FindAllStringIndex(s, -1) {
		end := m[1]
		for end < len(s) && s[end] != '@' && s[end] != '/' && !isSpace(s[end]) {
			end++
		}
		if end > m[1] && end < len(s) && s[end] == '@' && literal(s[m[1]:end]) {
			spans = append(spans, span{m[1], end})
		}
	}
	return mergeSpans(spans)
}

// quotedOrBare reads the value starting at i of s: an optional scheme
// word ("Bearer "), then a quoted string or a bare word. It returns the
// value's end, and false when the value is not a whole literal. A flag's
// value cannot start with "-" (that is the next flag).
func quotedOrBare(s string, i int, flag bool) (int, bool) {
	start := i
	if m := secretSchemeRe.FindStringIndex(s[i:]); m != nil {
		i += m[1]
	}
	if i == len(s) || flag && i == start && s[i] == '-' {
		return 0, false
	}
	end := i
	switch q := s[i]; q {
	case '"', '\'':
		k := strings.IndexByte(s[i+1:], q)
		if k < 0 {
			return 0, false
		}
		end = i + 1 + k + 1
	default:
		for end < len(s) && !isSpace(s[end]) && strings.IndexByte(",;&'\")]}", s[end]) < 0 {
			end++
		}
		if end == i {
			return 0, false
		}
	}
	return end, literal(s[start:end]) && boundary(s, end)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~+/=-", c) >= 0
}

// mergeSpans sorts spans and joins those that overlap.
func mergeSpans(spans []span) []span {
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	var out []span
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// maskValue masks, at any depth, the literal string values of keys that
// look like secrets (numbers and booleans are left: "max_tokens": 100 is
// no secret), and literal secrets inside other string values.
func maskValue(v any) any {
	return maskTree(v, false)
}

// maskTree masks v; under a secret key every literal string is masked.
func maskTree(v any, secret bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = maskTree(e, secret || secretKeyRe.MatchString(k))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = maskTree(e, secret)
		}
		return out
	case string:
		if secret && t != "" && literal(t) {
			return secretMask
		}
		return maskText(t)
	}
	return v
}
