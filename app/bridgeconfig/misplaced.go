package bridgeconfig

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A key that belongs in a section but is written at the top of the file
// ("web:" for "channels: web:") is unknown where it stands, and no
// top-level key is near it in spelling. hintMisplaced names the section
// that holds a key of that name.

// hintMisplaced returns problems with each "unknown key" at the top of
// the file data that a section holds told where it belongs.
func hintMisplaced(data []byte, problems []error) []error {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return problems
	}
	top := root.Content[0]
	out := append([]error(nil), problems...)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k := top.Content[i]
		sections := sectionsHolding(k.Value)
		if len(sections) == 0 {
			continue
		}
		unknown := fmt.Sprintf("line %d: unknown key %q", k.Line, k.Value)
		for j, p := range out {
			if msg := p.Error(); msg == unknown || strings.HasPrefix(msg, unknown+" (") {
				paths := make([]string, len(sections))
				for n, s := range sections {
					paths[n] = s + "." + k.Value
				}
				out[j] = fmt.Errorf("%s at the top level: it belongs in the %s section (%s)", unknown, strings.Join(sections, " or "), strings.Join(paths, " or "))
			}
		}
	}
	return out
}

// sectionsHolding names the top-level sections of Config that have a key
// named key: "channels" for "web", "timeouts" for "reminders".
func sectionsHolding(key string) []string {
	var out []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		section := yamlName(f)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if section == "" || ft.Kind() != reflect.Struct {
			continue
		}
		for j := range ft.NumField() {
			if yamlName(ft.Field(j)) == key {
				out = append(out, section)
			}
		}
	}
	return out
}

// yamlName is the key of a struct field in the file, "" for none.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}
