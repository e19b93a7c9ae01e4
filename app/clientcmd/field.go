package clientcmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/client"
)

// fieldHelp is the grammar of ask's --field, for its flag help.
const fieldHelp = "type the answer as `NAME:TYPE[:RULE]`; TYPE is string, email, uri, date or date-time " +
	"(RULE: the length, MIN..MAX), integer or number (RULE: MIN..MAX, MIN.. or ..MAX), boolean, or enum " +
	"(RULE: its values, a|b|c; several chosen with --multi); e.g. port:integer:1024..65535, start:date, level:enum:low|high"

// parseField reads ask's --field: the name, the type and its rule. It
// checks the grammar; the bridge checks the field itself and names what
// is wrong.
func parseField(s string, multi bool) (*client.Field, error) {
	name, rest, _ := strings.Cut(s, ":")
	typ, rule, hasRule := strings.Cut(rest, ":")
	if strings.TrimSpace(name) == "" || typ == "" {
		return nil, fmt.Errorf("--field %q: write NAME:TYPE[:RULE], such as port:integer:1024..65535", s)
	}
	f := &client.Field{Name: name}
	switch typ {
	case "string", client.FormatEmail, client.FormatURI, client.FormatDate, client.FormatDateTime:
		f.Type = client.FieldString
		if typ != "string" {
			f.Format = typ
		}
		if hasRule {
			lo, hi, err := intRange(rule)
			if err != nil {
				return nil, fmt.Errorf("--field %q: the rule of %s is its length, MIN..MAX, MIN.. or ..MAX characters, such as 3..40", s, typ)
			}
			f.MinLength, f.MaxLength = lo, hi
		}
	case "integer", "number":
		f.Type = client.FieldType(typ)
		if hasRule {
			lo, hi, err := floatRange(rule)
			if err != nil {
				return nil, fmt.Errorf("--field %q: the rule of %s is its range, MIN..MAX, MIN.. or ..MAX, such as 1024..65535", s, typ)
			}
			f.Minimum, f.Maximum = lo, hi
		}
	case "boolean":
		f.Type = client.FieldBoolean
		if hasRule {
			return nil, fmt.Errorf("--field %q: a boolean takes no rule: write %s:boolean", s, name)
		}
	case "enum":
		f.Type = client.FieldEnum
		if multi {
			f.Type = client.FieldMultiEnum
		}
		if !hasRule || rule == "" {
			return nil, fmt.Errorf("--field %q: an enum lists its values, such as %s:enum:low|high", s, name)
		}
		for _, v := range strings.Split(rule, "|") {
			f.Choices = append(f.Choices, client.FieldChoice{Value: v})
		}
	default:
		return nil, fmt.Errorf("--field %q: %q is not a type: use string, email, uri, date, date-time, integer, number, boolean or enum", s, typ)
	}
	if multi && f.Type != client.FieldMultiEnum {
		return nil, fmt.Errorf("--multi with --field takes an enum, whose values several may be chosen of; %s is %s", name, typ)
	}
	return f, nil
}

// bounds splits "MIN..MAX", "MIN.." or "..MAX".
func bounds(rule string) (lo, hi string, err error) {
	lo, hi, ok := strings.Cut(rule, "..")
	if !ok || (lo == "" && hi == "") {
		return "", "", fmt.Errorf("no range")
	}
	return lo, hi, nil
}

func intRange(rule string) (*int, *int, error) {
	lo, hi, err := bounds(rule)
	if err != nil {
		return nil, nil, err
	}
	read := func(s string) (*int, error) {
		if s == "" {
			return nil, nil
		}
		n, err := strconv.Atoi(s)
		return &n, err
	}
	l, err := read(lo)
	if err != nil {
		return nil, nil, err
	}
	h, err := read(hi)
	return l, h, err
}

func floatRange(rule string) (*float64, *float64, error) {
	lo, hi, err := bounds(rule)
	if err != nil {
		return nil, nil, err
	}
	read := func(s string) (*float64, error) {
		if s == "" {
			return nil, nil
		}
		x, err := strconv.ParseFloat(s, 64)
		return &x, err
	}
	l, err := read(lo)
	if err != nil {
		return nil, nil, err
	}
	h, err := read(hi)
	return l, h, err
}
