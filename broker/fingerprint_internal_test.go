package broker

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
)

// TestFingerprintVersions checks that a fingerprint names its version,
// tells bodies apart, and that sameAsk reads the unversioned form of the
// release before (the same digest without the version) and no version it
// does not know.
func TestFingerprintVersions(t *testing.T) {
	timeout := Duration(30 * time.Minute)
	r := &AskRequest{SessionID: "s", ToolCallID: "c", Timeout: &timeout, Context: "<b>deploy</b> & \u2028"}
	prompts := []Prompt{{Question: "Which database?", Options: []Option{{Label: "SQLite"}, {Label: "Postgres"}}}}
	fp := Fingerprint(r, prompts)
	if !strings.HasPrefix(fp, "v2:") || len(fp) != len("v2:")+32 {
		t.Fatalf("Fingerprint = %q, want v2: and 32 hex digits", fp)
	}
	other := *r
	other.Route = "ops"
	otherFP := Fingerprint(&other, prompts)
	if otherFP == fp {
		t.Fatal("two bodies that differ in their route have one fingerprint")
	}
	old := strings.TrimPrefix(fp, "v2:")
	for _, tc := range []struct {
		stored string
		same   bool
	}{
		{fp, true}, {otherFP, false}, {old, true}, {strings.TrimPrefix(otherFP, "v2:"), false},
		{"v9:" + strings.TrimPrefix(fp, "v2:"), false}, {"", false},
	} {
		if got := sameAsk(tc.stored, fp); got != tc.same {
			t.Errorf("sameAsk(%q) = %v, want %v", tc.stored, got, tc.same)
		}
	}
}

// TestQuestionJSONRoundTrip checks that a question's JSON, as the stores
// write it, reads back as itself (times compared as instants: the
// monotonic reading and the zone's name do not survive JSON).
func TestQuestionJSONRoundTrip(t *testing.T) {
	f := testutil.NewFiller(5, 6)
	for i := range 2000 {
		var q Question
		f.Fill(&q)
		data, err := json.Marshal(&q)
		if err != nil {
			continue // a time JSON cannot carry
		}
		if MendedJSON(data) {
			continue // mended text does not read back as given
		}
		var back Question
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("question %d: %v\n%s", i, err, data)
		}
		again, err := json.Marshal(&back)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("question %d does not read back as itself:\nfirst: %s\nagain: %s (%v)", i, data, again, err)
		}
	}
}
