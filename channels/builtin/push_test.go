package builtin

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// The web inbox built from the configuration keeps its push state in the
// bridge's store, which both stores offer: its public key is served.
func TestInboxPushFromStore(t *testing.T) {
	sb := sqlitetest.NewBroker(t)
	w, err := Config{}.Build(sb.Broker, sb.Store, true, time.UTC, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	w.Handlers["/"].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/inbox/push/key", nil))
	var body struct {
		PublicKey string `json:"public_key"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != http.StatusOK || err != nil || len(body.PublicKey) != 87 {
		t.Fatalf("GET /inbox/push/key = %d %s; want the 65-byte key in base64url", rec.Code, rec.Body)
	}
}
