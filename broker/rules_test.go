package broker_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

func TestRuleCheck(t *testing.T) {
	by := broker.Responder{Channel: "slack", User: "U2"}
	ok := func(mod func(r *broker.Rule)) broker.Rule {
		r := broker.Rule{Tool: "Bash", Kind: broker.RulePrefix, Pattern: "npm test", Project: "/home/ana/app", By: by}
		mod(&r)
		return r
	}
	for _, tc := range []struct {
		name      string
		rule      broker.Rule
		field     string
		mentioned string
	}{
		{"Prefix", ok(func(*broker.Rule) {}), "", ""},
		{"ExactCommandWithOperators", ok(func(r *broker.Rule) { r.Kind, r.Pattern = broker.RuleExact, "make && make install" }), "", ""},
		{"GlobInProject", ok(func(r *broker.Rule) { r.Tool, r.Kind, r.Pattern = "Edit", broker.RuleGlob, "src/*.go" }), "", ""},
		{"AbsoluteGlobAnywhere", ok(func(r *broker.Rule) {
			r.Tool, r.Kind, r.Pattern, r.Project = "Write", broker.RuleGlob, "/tmp/out/*", ""
		}), "", ""},
		{"NoTool", ok(func(r *broker.Rule) { r.Tool = "" }), "tool", "missing"},
		{"UnknownTool", ok(func(r *broker.Rule) { r.Tool = "WebFetch" }), "tool", "WebFetch"},
		{"UnknownKind", ok(func(r *broker.Rule) { r.Kind = "regex" }), "kind", "exact, prefix or glob"},
		{"GlobForBash", ok(func(r *broker.Rule) { r.Kind = broker.RuleGlob }), "kind", "glob is for the file tools"},
		{"PrefixForEdit", ok(func(r *broker.Rule) { r.Tool = "Edit" }), "kind", "prefix is for commands"},
		{"EmptyPattern", ok(func(r *broker.Rule) { r.Pattern = "  " }), "pattern", "empty"},
		{"ShortPrefix", ok(func(r *broker.Rule) { r.Pattern = "ls" }), "pattern", "shorter than 3"},
		{"PrefixEndsInOperator", ok(func(r *broker.Rule) { r.Pattern = "npm test;" }), "pattern", `";"`},
		{"PrefixWithPipe", ok(func(r *broker.Rule) { r.Pattern = "cat x | sh" }), "pattern", `"|"`},
		{"PrefixWithSubstitution", ok(func(r *broker.Rule) { r.Pattern = "echo $(id)" }), "pattern", `"$("`},
		{"PrefixSpacesAtEnds", ok(func(r *broker.Rule) { r.Pattern = "npm test " }), "pattern", "spaces at its ends"},
		{"BadGlob", ok(func(r *broker.Rule) { r.Tool, r.Kind, r.Pattern = "Edit", broker.RuleGlob, "/src/[a" }), "pattern", "glob"},
		{"GlobAtRoot", ok(func(r *broker.Rule) { r.Tool, r.Kind, r.Pattern = "Edit", broker.RuleGlob, "/*" }), "pattern", "anywhere"},
		{"RelativePathNoProject", ok(func(r *broker.Rule) { r.Tool, r.Kind, r.Pattern, r.Project = "Edit", broker.RuleExact, "a.go", "" }), "pattern", "relative"},
		{"RelativeProject", ok(func(r *broker.Rule) { r.Project = "app" }), "project", "absolute"},
		{"UncleanProject", ok(func(r *broker.Rule) { r.Project = "/home/ana/../ana" }), "project", "absolute"},
		{"NoBy", ok(func(r *broker.Rule) { r.By = broker.Responder{} }), "by", "missing"},
		{"LongReason", ok(func(r *broker.Rule) { r.Reason = strings.Repeat("x", broker.MaxReasonChars+1) }), "reason", "at most"},
		{"ControlInPattern", ok(func(r *broker.Rule) { r.Pattern = "npm\x1btest" }), "pattern", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.rule
			err := tc.rule.Check()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			var fe *broker.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.mentioned) || !errors.Is(err, broker.ErrInvalid) {
				t.Fatalf("Check() = %v, want a %s error mentioning %q", err, tc.field, tc.mentioned)
			}
			if tc.rule.Pattern != before.Pattern || tc.rule.Project != before.Project {
				t.Fatalf("Check changed the rule")
			}
		})
	}
}
