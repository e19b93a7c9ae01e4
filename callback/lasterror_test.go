package callback

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/testutil"
)

// banner is what a receiver says; none of it may reach last_error, which
// the agent reads.
const banner = "INFO {\"server_id\":\"NATS-SECRET\",\"version\":\"2.10\"} root:x:0:0 mysql_native_password"

// last_error says what kind of failure an attempt met, as a class and the
// status code: never the receiver's body, a banner, or the text of a
// network error.
func TestLastErrorIsAClassOnly(t *testing.T) {
	withBody := func(status int) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(banner))
		}))
		t.Cleanup(s.Close)
		return s.URL + "/hook"
	}
	tlsServer := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(banner))
	}))
	t.Cleanup(tlsServer.Close)
	closed := testutil.TCPService(t, func(net.Conn) {})
	refused := refusedAddr(t)

	tests := []struct {
		name      string
		url       string
		state     string
		lastError string
	}{
		{"404 with a body", withBody(http.StatusNotFound), broker.DeliveryFailed, "http 404"},
		{"403 with a body", withBody(http.StatusForbidden), broker.DeliveryFailed, "http 403"},
		{"503 with a body", withBody(http.StatusServiceUnavailable), broker.DeliveryPending, "http 503"},
		{"a banner in answer", "http://" + testutil.TCPService(t, func(c net.Conn) {
			_, _ = bufio.NewReader(c).ReadString('\n')
			_, _ = c.Write([]byte(banner + "\r\n"))
		}) + "/hook", broker.DeliveryPending, "bad response"},
		// A service that speaks first (NATS, MySQL, SMTP): depending on
		// when its banner arrives, the HTTP client sees a bad answer or a
		// connection spoilt before the request.
		{"a banner first", "http://" + testutil.TCPService(t, func(c net.Conn) {
			_, _ = c.Write([]byte(banner + "\r\n"))
			_, _ = bufio.NewReader(c).ReadString('\n')
		}) + "/hook", broker.DeliveryPending, "bad response|network"},
		{"closed at once", "http://" + closed + "/hook", broker.DeliveryPending, "reset"},
		{"nothing listens", "http://" + refused + "/hook", broker.DeliveryPending, "refused"},
		{"https to an unknown certificate", tlsServer.URL + "/hook", broker.DeliveryPending, "tls"},
		{"https to plain http", "https://" + strings.TrimPrefix(withBody(http.StatusOK), "http://"), broker.DeliveryPending, "tls"},
		{"silent", "http://" + testutil.TCPService(t, func(c net.Conn) {
			time.Sleep(5 * time.Second)
		}) + "/hook", broker.DeliveryPending, "timeout"},
		{"no such name", "http://nowhere.test/hook", broker.DeliveryPending, "dns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			cfg := testConfig(time.Minute)
			cfg.Policy = mustPolicy(t, append([]string{"*.test"}, loopback...)...)
			// Only the silent server is meant to time out: the others get
			// time to fail as they do (a TLS handshake under the race
			// detector on a loaded machine can take seconds).
			cfg.Timeout = 30 * time.Second
			if tt.lastError == "timeout" {
				cfg.Timeout = 2 * time.Second
			}
			cfg.resolver = newDNSStub(nil).resolver(t)
			q := e.askAndAnswer(t, tt.url)
			run(t, New(e.st, cfg, quiet()))
			waitFor(t, "an attempt", func() bool { return e.delivery(t, q.ID).LastError != "" })
			del := e.delivery(t, q.ID)
			if del.State != tt.state || !slices.Contains(strings.Split(tt.lastError, "|"), del.LastError) {
				t.Errorf("delivery %s, last_error %q; want %s, %q", del.State, del.LastError, tt.state, tt.lastError)
			}
		})
	}
}
