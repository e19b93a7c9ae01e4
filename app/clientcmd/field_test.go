package clientcmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseField reads every type of --field, and says what is wrong
// with a bad one.
func TestParseField(t *testing.T) {
	for _, tc := range []struct {
		in    string
		multi bool
		want  string // the field as JSON, or the error
	}{
		{"port:integer:1024..65535", false, `{"name":"port","type":"integer","minimum":1024,"maximum":65535}`},
		{"ratio:number:-0.5..", false, `{"name":"ratio","type":"number","minimum":-0.5}`},
		{"n:integer:..10", false, `{"name":"n","type":"integer","maximum":10}`},
		{"n:integer", false, `{"name":"n","type":"integer"}`},
		{"who:string:3..40", false, `{"name":"who","type":"string","min_length":3,"max_length":40}`},
		{"mail:email", false, `{"name":"mail","type":"string","format":"email"}`},
		{"site:uri:..200", false, `{"name":"site","type":"string","max_length":200,"format":"uri"}`},
		{"start:date", false, `{"name":"start","type":"string","format":"date"}`},
		{"at:date-time", false, `{"name":"at","type":"string","format":"date-time"}`},
		{"now:boolean", false, `{"name":"now","type":"boolean"}`},
		{"level:enum:low|high", false, `{"name":"level","type":"enum","choices":[{"value":"low"},{"value":"high"}]}`},
		{"regions:enum:eu|us|ap", true, `{"name":"regions","type":"multi_enum","choices":[{"value":"eu"},{"value":"us"},{"value":"ap"}]}`},
		{"port", false, `--field "port": write NAME:TYPE[:RULE], such as port:integer:1024..65535`},
		{":integer", false, `write NAME:TYPE[:RULE]`},
		{"port:int", false, `"int" is not a type: use string, email, uri, date, date-time, integer, number, boolean or enum`},
		{"port:integer:1..x", false, `the rule of integer is its range, MIN..MAX, MIN.. or ..MAX, such as 1024..65535`},
		{"port:integer:..", false, `the rule of integer is its range`},
		{"port:integer:5", false, `the rule of integer is its range`},
		{"who:string:3..4.5", false, `the rule of string is its length`},
		{"now:boolean:yes", false, `a boolean takes no rule: write now:boolean`},
		{"level:enum", false, `an enum lists its values, such as level:enum:low|high`},
		{"port:integer", true, `--multi with --field takes an enum`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			f, err := parseField(tc.in, tc.multi)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				b, _ := json.Marshal(f)
				got = string(b)
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("parseField(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
