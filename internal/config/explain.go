package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The YAML decoder words its errors for Go programmers ("field remindrs
// not found in type main.TimeoutsConfig", "cannot unmarshal !!str `lots`
// into int"). explainYAML rewrites them for the person who wrote the
// file: the key's path in the file, what the value must be, and the
// nearest known key, found from the file's own node tree and the yaml
// tags of the struct the file is read into.

var (
	unknownFieldRE = regexp.MustCompile(`^line (\d+): field (.+) not found in type (.+)$`)
	wrongTypeRE    = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
)

// ValueError is a bad value met as the file is read, for a type's
// UnmarshalYAML: as a *yaml.TypeError it lets the decoder read on, so that
// one run reports every problem of the file, each with its line.
func ValueError(n *yaml.Node, err error) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
}

// explainYAML returns one error per problem in err, each for a person; it
// returns err alone when it is not the decoder's list of type errors.
func explainYAML(data []byte, err error, top reflect.Type) []error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []error{errors.New(strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	out := make([]error, 0, len(te.Errors))
	for _, msg := range te.Errors {
		out = append(out, explainOne(&root, msg, top))
	}
	return out
}

func explainOne(root *yaml.Node, msg string, top reflect.Type) error {
	if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		key := m[2]
		path, ok := findKey(root, line, key, nil)
		if !ok {
			return errors.New(msg)
		}
		section := strings.Join(path, "")
		s := fmt.Sprintf("line %d: unknown key %q", line, key)
		if section != "" {
			s += " in " + section
		}
		if t, ok := typeAt(top, path); ok {
			if near := nearest(key, yamlFields(t)); near != "" {
				s += fmt.Sprintf(" (did you mean %q?)", near)
			}
		}
		return errors.New(s)
	}
	if m := wrongTypeRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		tag, value, into := m[2], m[3], m[4]
		n, path, ok := findValue(root, line, tag, value, nil)
		if !ok {
			return errors.New(msg)
		}
		got := "a mapping"
		switch {
		case tag == "seq":
			got = "a list"
		case n.Kind == yaml.ScalarNode:
			got = strconv.Quote(n.Value)
		}
		want := describeType(into)
		if t, ok := typeAt(top, path); ok {
			want = describeKind(t)
		}
		return fmt.Errorf("line %d: %s must be %s, got %s", line, strings.TrimPrefix(strings.Join(path, ""), "."), want, got)
	}
	return errors.New(msg)
}

// findKey returns the path of the mapping that holds key on line: its
// elements are ".name" for keys and "[i]" for list items, so that they
// join to "routes.default" or "agents[0]".
func findKey(n *yaml.Node, line int, key string, path []string) ([]string, bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p, ok := findKey(c, line, key, path); ok {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p, ok := findKey(c, line, key, append(slices.Clip(path), fmt.Sprintf("[%d]", i))); ok {
				return p, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Line == line && k.Value == key {
				return trimDot(path), true
			}
			if p, ok := findKey(n.Content[i+1], line, key, append(slices.Clip(path), "."+k.Value)); ok {
				return p, true
			}
		}
	}
	return nil, false
}

// findValue returns the value node on line of the decoder's tag (seq,
// map, or a scalar's) whose text it quoted (cut to 7 characters and
// "..." when long), with its path.
func findValue(n *yaml.Node, line int, tag, quoted string, path []string) (*yaml.Node, []string, bool) {
	matches := func(v *yaml.Node) bool {
		if v.Line != line {
			return false
		}
		switch tag {
		case "seq":
			return v.Kind == yaml.SequenceNode
		case "map":
			return v.Kind == yaml.MappingNode
		}
		if v.Kind != yaml.ScalarNode {
			return false
		}
		if short, cut := strings.CutSuffix(quoted, "..."); cut {
			return strings.HasPrefix(v.Value, short)
		}
		return v.Value == quoted
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if v, p, ok := findValue(c, line, tag, quoted, path); ok {
				return v, p, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := append(slices.Clip(path), fmt.Sprintf("[%d]", i))
			if matches(c) {
				return c, p, true
			}
			if v, p, ok := findValue(c, line, tag, quoted, p); ok {
				return v, p, true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := append(slices.Clip(path), "."+n.Content[i].Value)
			if c := n.Content[i+1]; matches(c) {
				return c, p, true
			}
			if v, p, ok := findValue(n.Content[i+1], line, tag, quoted, p); ok {
				return v, p, true
			}
		}
	}
	return nil, nil, false
}

func trimDot(path []string) []string {
	if len(path) > 0 {
		out := slices.Clone(path)
		out[0] = strings.TrimPrefix(out[0], ".")
		return out
	}
	return path
}

// typeAt follows path through t: struct fields by their yaml tags, map
// values and list items by any key.
func typeAt(t reflect.Type, path []string) (reflect.Type, bool) {
	for _, p := range path {
		t = deref(t)
		switch {
		case strings.HasPrefix(p, "["):
			if t.Kind() != reflect.Slice {
				return nil, false
			}
			t = t.Elem()
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			f, ok := yamlField(t, strings.TrimPrefix(p, "."))
			if !ok {
				return nil, false
			}
			t = f
		default:
			return nil, false
		}
	}
	return deref(t), true
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// yamlFields lists the keys a struct type accepts, inline fields included.
func yamlFields(t reflect.Type) []string {
	var out []string
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case !f.IsExported() || name == "-":
		case strings.Contains(opts, "inline"):
			out = append(out, yamlFields(deref(f.Type))...)
		case name != "":
			out = append(out, name)
		default:
			out = append(out, strings.ToLower(f.Name))
		}
	}
	return out
}

// yamlField returns the type of the field a struct type reads from key.
func yamlField(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") {
			if ft, ok := yamlField(deref(f.Type), key); ok {
				return ft, true
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if f.IsExported() && name == key {
			return f.Type, true
		}
	}
	return nil, false
}

// nearest returns the known key closest to a mistyped one: within two
// edits, or one it is a prefix of (or that is a prefix of it).
func nearest(typed string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		d := editDistance(strings.ToLower(typed), k)
		if d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return best
	}
	for _, k := range known {
		if len(typed) >= 3 && (strings.HasPrefix(k, typed) || strings.HasPrefix(typed, k)) {
			return k
		}
	}
	return ""
}

// editDistance is the Levenshtein distance, with a swap of two adjacent
// letters counted as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// describeKind says what a value of type t looks like in YAML.
func describeKind(t reflect.Type) string {
	if t == reflect.TypeOf(time.Duration(0)) {
		return "a duration such as 30s"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping of keys to values"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "text"
	}
	return "a " + t.Kind().String()
}

// describeType says what a value of a Go type, named by the decoder,
// looks like in YAML, when its key cannot be found in the struct.
func describeType(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a mapping of keys to values"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"), strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "text"
	case strings.HasPrefix(goType, "*"):
		return describeType(strings.TrimPrefix(goType, "*"))
	}
	return "a mapping of keys to values"
}
