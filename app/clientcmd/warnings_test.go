package clientcmd

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// `bridge ask --pending` prints the ask's warnings beside the id when
// nobody watches where the question went (here, only the text channel).
func TestAskPendingPrintsWarnings(t *testing.T) {
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	t.Cleanup(srv.Close)
	t.Setenv("ASKBRIDGE_SERVER", srv.URL)
	t.Setenv("ASKBRIDGE_KEY", "")

	var stdout, stderr bytes.Buffer
	if code := run([]string{"ask", "--pending", "Rename the repository?"}, strings.NewReader(""), &stdout, &stderr); code != cmdline.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out struct {
		ID       string        `json:"id"`
		Status   broker.Status `json:"status"`
		Warnings []string      `json:"warnings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if out.ID == "" || out.Status != broker.StatusPending || len(out.Warnings) != 1 ||
		!strings.HasPrefix(out.Warnings[0], "nobody is told of the question; the question will wait until ") {
		t.Fatalf("printed %s", stdout.String())
	}
}
