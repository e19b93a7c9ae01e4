package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
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
		if !strings.HasSuffix(got, c.err.Error()) {
			t.Errorf("errClass(%q) = %q, want the error's text kept", c.err, got)
		}
	}
}
