package redis

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// A resolution that Resolve reads back without decoding is exactly what
// decoding its JSON gives, and shares nothing with the one it wrote; the
// ones where a decode could differ are decoded.
func TestResolutionAsDecoded(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 123456789, time.UTC)
	ana := &broker.Responder{Channel: "slack", User: "U1", Name: "Ana <ops> & \u2028"}
	full := resolution{
		Answers: map[string]broker.Answer{
			"Which database?": {Selected: []string{"SQLite"}, AnsweredBy: ana},
			"Why?":            {CustomText: "see [File #1: plan.pdf] — ünïcode 🚀", Attachments: []broker.FileRef{{N: 1, Name: "plan.pdf", Type: "application/pdf", Size: 3, URL: "/f/1"}}},
			"Skip?":           {Skipped: true, Selected: []string{}},
			"Default?":        {Defaulted: true, Action: broker.ActionEndTurn, Prefill: "go on\n"},
		},
		Fallback: "SQLite", Reason: "a reason", NotReady: true, AnsweredBy: ana, ResolvedAt: at,
	}
	// differs says that a copy is not what a decode gives; a typed
	// "\ufffd" is refused only to be safe.
	for _, c := range []struct {
		name          string
		res           resolution
		want, differs bool
	}{
		{"full", full, true, false},
		{"timed out", resolution{Fallback: broker.FallbackNone, ResolvedAt: at}, true, false},
		{"in another zone", resolution{ResolvedAt: at.In(time.FixedZone("CET", 3600))}, false, true},
		{"local", resolution{ResolvedAt: time.Now()}, false, true},
		{"text not UTF-8", resolution{Answers: map[string]broker.Answer{"q": {CustomText: "a\xffb"}}, ResolvedAt: at}, false, true},
		{"key not UTF-8", resolution{Answers: map[string]broker.Answer{"q\xff": {}}, ResolvedAt: at}, false, true},
		{"typed backslash-u", resolution{Reason: `\ufffd`, ResolvedAt: at}, false, false},
		{"empty answers", resolution{Answers: map[string]broker.Answer{}, ResolvedAt: at}, false, true},
		{"empty attachments", resolution{Answers: map[string]broker.Answer{"q": {Attachments: []broker.FileRef{}}}, ResolvedAt: at}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, err := json.Marshal(c.res)
			if err != nil {
				t.Fatal(err)
			}
			if got := asDecoded(c.res, body); got != c.want {
				t.Fatalf("asDecoded = %v, want %v (%s)", got, c.want, body)
			}
			var decoded resolution
			if err := json.Unmarshal(body, &decoded); err != nil {
				t.Fatal(err)
			}
			if same := reflect.DeepEqual(copyResolution(c.res), decoded); same == c.differs {
				t.Fatalf("the copy equals the decoded resolution: %v, want %v", same, !c.differs)
			}
		})
	}
	// The copy shares nothing with what was written.
	before, _ := json.Marshal(full)
	cp := copyResolution(full)
	for k, a := range cp.Answers {
		if len(a.Selected) > 0 {
			a.Selected[0] = "changed"
		}
		if len(a.Attachments) > 0 {
			a.Attachments[0].Name = "changed"
		}
		if a.AnsweredBy != nil {
			a.AnsweredBy.User = "changed"
		}
		cp.Answers[k] = a
	}
	cp.Answers["new"] = broker.Answer{}
	cp.AnsweredBy.Name = "changed"
	if after, _ := json.Marshal(full); string(after) != string(before) {
		t.Fatalf("changing the copy changed the resolution written:\n%s\n%s", before, after)
	}
}
