package broker

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A failure is a rate limit when its text says so, not when a 429 is part
// of an address or an id in it: the error of a post whose answer was lost
// names the platform's URL, and read as a rate limit it would make the
// next attempt post again without looking for the copy already posted.
func TestErrClass(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New(`Post "http://127.0.0.1:42951/api/chat.postMessage": EOF`), "unreachable"},
		{errors.New(`Post "http://127.0.0.1:34290/api/chat.postMessage": read tcp 127.0.0.1:54429->127.0.0.1:34290: read: connection reset by peer`), "unreachable"},
		{errors.New(`Post "https://api.telegram.org/bot4291:AAF429x/sendMessage": EOF`), "unreachable"},
		{errors.New("telegram: post to -1001429000000: unexpected EOF"), "unreachable"},
		{errors.New("slack: update D0ANA0001/1700000000.429000: EOF"), "unreachable"},
		{errors.New("discord: 429 Too Many Requests"), "rate limited"},
		{errors.New("HTTP 429"), "rate limited"},
		{errors.New("unexpected status=429"), "rate limited"},
		{errors.New("status code (429)"), "rate limited"},
		{errors.New("429"), "rate limited"},
		{errors.New("request failed with status 429."), "rate limited"},
		{errors.New("telegram: 429: retry later"), "rate limited"},
		{errors.New("discord: HTTP 429 - slow down"), "rate limited"},
		{errors.New("GET /429/x: EOF"), "unreachable"},
		{errors.New("Too Many Requests"), "rate limited"},
		{errors.New("rate limit exceeded"), "rate limited"},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("post to 127.0.0.1:42951: %w", ErrRateLimited), "rate limited"},
		{Permanent(errors.New("channel_not_found (429 in its text)")), "permanent"},
	} {
		got := errClass(c.err)
		if class, _ := splitClass(got); class != c.want {
			t.Errorf("errClass(%q) = %q, want class %q", c.err, got, c.want)
		}
		if internals.MatchString(got) || strings.Contains(got, "/") {
			t.Errorf("errClass(%q) = %q, which names an address, a URL or a path", c.err, got)
		}
	}
}

// A copy's last_error is the class and one short sentence: the platform's
// reason for a refusal when it is plain words, never a URL, an address or
// a path from the error.
func TestErrClassText(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"connection refused", fmt.Errorf("telegram: post question k7m2qx to chat 42: %w",
			&url.Error{Op: "Post", URL: "http://10.0.0.5:8080/bot<token>/sendMessage", Err: errors.New("dial tcp 10.0.0.5:8080: connect: connection refused")}),
			"unreachable: " + textUnreachable},
		{"timeout", fmt.Errorf(`slack: post question k7m2qx to C1: Post "https://slack.internal:8443/api/chat.postMessage": %w`, context.DeadlineExceeded),
			"timeout: " + textTimeout},
		{"rate limited with a wait", RetryAfter(30*time.Second, errors.New(`discord: POST https://10.1.2.3/api/v9/channels/1/messages: 429`)),
			"rate limited: the platform asked to wait 30s"},
		{"rate limited without one", errors.New("telegram: post to 127.0.0.1:9999: Too Many Requests"), "rate limited: " + textSlowDown},
		{"telegram refusal", Permanent(fmt.Errorf("telegram: post question k7m2qx to chat 42: %w", errors.New("Bad Request: chat not found"))),
			"permanent: chat not found"},
		{"slack refusal", Permanent(fmt.Errorf("slack: post question k7m2qx to C1: %w", errors.New("channel_not_found"))),
			"permanent: channel_not_found"},
		{"discord refusal in JSON", Permanent(errors.New(`HTTP 404 Not Found, {"message": "Unknown Channel", "code": 10003}`)),
			"permanent: Unknown Channel"},
		{"telegram refusal in JSON", Permanent(errors.New(`{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`)),
			"permanent: bot was blocked by the user"},
		{"refusal naming an address", Permanent(errors.New("refused by gateway 10.0.0.5")), "permanent: " + textRefused},
		{"refusal naming a host", Permanent(errors.New("no route via api.internal.example")), "permanent: " + textRefused},
		{"refusal naming a URL", Permanent(errors.New("forbidden: see https://example.com/x")), "permanent: " + textRefused},
		{"refusal in a JSON body with a URL", Permanent(errors.New(`{"message": "moved to http://10.0.0.7/"}`)), "permanent: " + textRefused},
		{"refusal far too long", Permanent(errors.New(strings.Repeat("no ", 40))), "permanent: " + textRefused},
		{"refusal with two errors", Permanent(errors.Join(errors.New("chat not found"), errors.New("dial tcp 10.0.0.5:80"))), "permanent: chat not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := errClass(c.err); got != c.want {
				t.Errorf("errClass(%q) = %q, want %q", c.err, got, c.want)
			}
		})
	}
}

// A last_error stored before last_errors were short is shown as its
// class's sentence when it names internals; a short one stays.
func TestPublicError(t *testing.T) {
	for _, c := range []struct{ stored, want string }{
		{`unreachable: Post "http://10.0.0.5:8080/bot<token>/sendMessage": dial tcp 10.0.0.5:8080: connect: connection refused`, "unreachable: " + textUnreachable},
		{`gave up after 4 attempts: timeout: Post "https://slack.com/api/chat.postMessage": context deadline exceeded`, "gave up after 4 attempts: timeout: " + textTimeout},
		{"permanent: telegram: post to 127.0.0.1:8081: Bad Request: chat not found", "permanent: " + textRefused},
		{"rate limited: HTTP 429 from [::1]:443", "rate limited: " + textSlowDown},
		{"permanent: chat not found", "permanent: chat not found"},
		{"gave up after 3 attempts: unreachable: " + textUnreachable, "gave up after 3 attempts: unreachable: " + textUnreachable},
		{"the question no longer exists", "the question no longer exists"},
	} {
		if got := publicError(c.stored); got != c.want {
			t.Errorf("publicError(%q) = %q, want %q", c.stored, got, c.want)
		}
	}
}
