package clientcmd

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// TestRulesCommands lists and revokes a rule through bridge rules, and
// checks the bad inputs: a non-numeric ID, an unknown one, a stray
// argument.
func TestRulesCommands(t *testing.T) {
	b := sqlitetest.NewBroker(t)
	_, err := b.Store.AddRule(context.Background(), broker.Rule{Agent: api.LocalAgent, Tool: "Bash", Kind: broker.RulePrefix,
		Pattern: "npm test", Project: "/src/app", By: broker.Responder{Channel: "slack", User: "U2", Name: "ana"}, At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	defer srv.Close()
	t.Setenv("ASKBRIDGE_SERVER", srv.URL)
	t.Setenv("ASKBRIDGE_KEY", "")
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		out     string
		errText string
	}{
		{"List", []string{"rules", "list"}, cmdline.ExitOK, "Bash prefix `npm test` in /src/app", ""},
		{"ListJSON", []string{"rules", "list", "--json"}, cmdline.ExitOK, `"pattern": "npm test"`, ""},
		{"ListStray", []string{"rules", "list", "x"}, cmdline.ExitBadInput, "", ""},
		{"RevokeNotANumber", []string{"rules", "revoke", "abc"}, cmdline.ExitBadInput, "", "not a rule ID"},
		{"RevokeUnknown", []string{"rules", "revoke", "99"}, cmdline.ExitFailure, "", "bridge rules list"},
		{"Revoke", []string{"rules", "revoke", "1"}, cmdline.ExitOK, "revoked rule 1", ""},
		{"ListAfter", []string{"rules", "list"}, cmdline.ExitOK, "no rules", ""},
		{"ListRevoked", []string{"rules", "list", "--revoked"}, cmdline.ExitOK, "npm test", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.errText) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
		})
	}
}
