package mcp_test

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/mcp"
)

// The progress interval has one range, from the file or the flag.
func TestSettingsValidate(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                      "",
		100 * time.Millisecond: "",
		5 * time.Minute:        "",
		99 * time.Millisecond:  "mcp.progress_every: 99ms is outside 100ms–5m (clients time out without progress)",
		6 * time.Minute:        "mcp.progress_every: 6m0s is outside 100ms–5m (clients time out without progress)",
	} {
		err := mcp.Settings{ProgressEvery: mcp.ProgressInterval(d)}.Validate()
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("%s: %v, want %q", d, err, want)
		}
	}
}
