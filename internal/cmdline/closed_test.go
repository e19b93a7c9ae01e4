package cmdline

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/client"
)

// A refusal for a closed question says its state in words, whatever
// store words the bridge's message carries.
func TestClientErrorClosedWithoutStoreWords(t *testing.T) {
	for _, store := range []string{"sqlite", "redis"} {
		err := &client.APIError{StatusCode: http.StatusConflict, Code: "closed", State: client.StatusTimedOut,
			Message: fmt.Sprintf("%s: resolve k7m2qx: question k7m2qx is timed_out", store)}
		got := ClientError(err, "").Error()
		if got != "the question is already timed out" || strings.Contains(got, store) {
			t.Errorf("%s: %q", store, got)
		}
	}
}
