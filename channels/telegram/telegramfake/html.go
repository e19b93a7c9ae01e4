package telegramfake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Entity is a formatting entity of a message, as Telegram returns it:
// offsets and lengths count UTF-16 code units of the plain text.
type Entity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	URL    string `json:"url,omitempty"`
}

// entityTypes maps the HTML tags Telegram supports to entity types.
var entityTypes = map[string]string{
	"b": "bold", "strong": "bold",
	"i": "italic", "em": "italic",
	"u": "underline", "ins": "underline",
	"s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
	"tg-spoiler": "spoiler", "span": "spoiler",
	"a":          "text_link",
	"code":       "code",
	"pre":        "pre",
	"blockquote": "blockquote",
	"tg-emoji":   "custom_emoji",
}

type openTag struct {
	name  string
	start int // UTF-16 offset in the plain text
	url   string
}

// parseHTML turns text in Telegram's HTML parse mode into the plain text a
// person sees and its entities, or returns the description of the error
// Telegram gives for it.
func parseHTML(s string) (string, []Entity, error) {
	var (
		out   strings.Builder
		units int
		stack []openTag
		ents  []Entity
	)
	write := func(t string) {
		out.WriteString(t)
		units += len(utf16.Encode([]rune(t)))
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return "", nil, parseError("Unclosed start tag at byte offset %d", i)
			}
			tag := s[i+1 : i+end]
			if strings.HasPrefix(tag, "/") {
				name := strings.ToLower(strings.TrimSpace(tag[1:]))
				if len(stack) == 0 || stack[len(stack)-1].name != name {
					return "", nil, parseError("Unexpected end tag at byte offset %d", i)
				}
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if units > top.start {
					ents = append(ents, Entity{Type: entityTypes[top.name], Offset: top.start, Length: units - top.start, URL: top.url})
				}
			} else {
				name, attrs, _ := strings.Cut(tag, " ")
				name = strings.ToLower(name)
				if _, ok := entityTypes[name]; !ok || name == "" {
					return "", nil, parseError("Unsupported start tag %q at byte offset %d", name, i)
				}
				t := openTag{name: name, start: units}
				if name == "a" {
					t.url = attrValue(attrs, "href")
				}
				stack = append(stack, t)
			}
			i += end + 1
		case '&':
			semi := strings.IndexByte(s[i:], ';')
			if semi > 0 && semi <= 10 {
				if r, ok := entity(s[i+1 : i+semi]); ok {
					write(r)
					i += semi + 1
					continue
				}
			}
			write("&")
			i++
		default:
			j := i + 1
			for j < len(s) && s[j] != '<' && s[j] != '&' {
				j++
			}
			write(s[i:j])
			i = j
		}
	}
	if len(stack) > 0 {
		return "", nil, parseError("Can't find end tag corresponding to start tag %q", stack[len(stack)-1].name)
	}
	return out.String(), ents, nil
}

func entity(name string) (string, bool) {
	switch name {
	case "lt":
		return "<", true
	case "gt":
		return ">", true
	case "amp":
		return "&", true
	case "quot":
		return `"`, true
	}
	if strings.HasPrefix(name, "#") {
		num, base := name[1:], 10
		if strings.HasPrefix(num, "x") || strings.HasPrefix(num, "X") {
			num, base = num[1:], 16
		}
		if n, err := strconv.ParseInt(num, base, 32); err == nil && n > 0 {
			return string(rune(n)), true
		}
	}
	return "", false
}

func attrValue(attrs, key string) string {
	i := strings.Index(attrs, key+"=")
	if i < 0 {
		return ""
	}
	v := attrs[i+len(key)+1:]
	if strings.HasPrefix(v, `"`) {
		v = v[1:]
		if j := strings.IndexByte(v, '"'); j >= 0 {
			v = v[:j]
		}
	}
	return v
}

// utf16Len is the length Telegram measures text limits in.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// parseError is Telegram's description of HTML it cannot parse, written
// as Telegram writes it.
func parseError(format string, args ...any) error {
	return errors.New("Bad Request: can't parse entities: " + fmt.Sprintf(format, args...))
}
