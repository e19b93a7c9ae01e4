package slack

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
)

// TestCopyLastErrorNamesNoInternals posts through the real channel to a
// Slack that cannot be reached, and to a conversation Slack refuses: the
// error Slack's client returns names the API's URL and address, and the
// copy's last_error, which agents and the inbox show, has the class and
// a sentence (Slack's own reason for a refusal) but neither; the bridge's
// log has the whole error with the question, channel and chat.
func TestCopyLastErrorNamesNoInternals(t *testing.T) {
	address := regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|://|:\d{2,5}`)
	for _, c := range []struct {
		name      string
		break_    func(e *testEnv)
		class     string
		lastError string
		logged    []string // in the log line of the failed attempt
	}{
		{"unreachable", func(e *testEnv) { e.fake.Close() }, "unreachable",
			"the platform could not be reached or did not take the call",
			[]string{"connection refused", "/chat.postMessage"}},
		{"refused", func(e *testEnv) { e.fake.FailChannel(general, "channel_not_found") }, "permanent",
			"channel_not_found", []string{"slack: post question", "channel_not_found"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			br := channeltest.NewBridge(t, map[string]broker.Route{"default": {Targets: []broker.Target{{Channel: Name, Chat: general}}}})
			e := newEnv(t, ModeHTTP, br)
			br.Register(e.ch)
			host := mustHost(t, e.fake.URL)
			c.break_(e)
			q, _, err := br.Broker.Ask(context.Background(), "agent", &broker.AskRequest{Question: "Which database?",
				Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}})
			if err != nil {
				t.Fatalf("Ask: %v", err)
			}
			var cp broker.Copy
			channeltest.Eventually(t, "a failed attempt recorded", func() bool {
				cs, err := br.Copies(context.Background(), q.ID)
				if err != nil || len(cs) != 1 || cs[0].Attempts == 0 || cs[0].LastError == "" {
					return false
				}
				cp = cs[0]
				return true
			})
			if cp.ErrorClass != c.class || cp.LastError != c.lastError {
				t.Errorf("copy: error_class %q, last_error %q; want %q, %q", cp.ErrorClass, cp.LastError, c.class, c.lastError)
			}
			if address.MatchString(cp.LastError) || strings.Contains(cp.LastError, host) {
				t.Errorf("last_error %q names an address or a URL", cp.LastError)
			}
			var line string
			channeltest.Eventually(t, "the failed attempt logged", func() bool {
				for _, l := range strings.Split(br.Logs.String(), "\n") {
					if strings.Contains(l, "platform outbox:") && strings.Contains(l, "question_id="+q.ID) && strings.Contains(l, "err=") {
						line = l
						return true
					}
				}
				return false
			})
			for _, want := range append([]string{"channel=slack", "chat=" + general}, c.logged...) {
				if !strings.Contains(line, want) {
					t.Errorf("the log line of the failed attempt lacks %q:\n%s", want, line)
				}
			}
			if c.name == "unreachable" && !strings.Contains(line, host) {
				t.Errorf("the log line lacks the address %s Slack's client named:\n%s", host, line)
			}
		})
	}
}

func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
