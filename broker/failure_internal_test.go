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

// A failure's class comes from how the channel wrapped its error, never
// from its text: a 429 in an error's text, which may be part of an
// address or an id (a port, a chat, a token in a URL), is not a rate
// limit. Misread, a lost answer's error would pass for a rate limit, which
// is known not to have posted, and the next attempt would post a second
// copy without looking for the first (mayHavePosted). Every channel wraps
// its platform's 429 with RetryAfter (their tests check it).
func TestClassify(t *testing.T) {
	typed := &Failure{Class: FailTimeout, Err: errors.New("deadline")}
	for _, c := range []struct {
		err   error
		want  FailureClass
		after time.Duration
	}{
		{errors.New(`Post "http://127.0.0.1:42951/api/chat.postMessage": EOF`), FailUnreachable, 0},
		{errors.New(`Post "http://127.0.0.1:34290/api/chat.postMessage": read tcp 127.0.0.1:54429->127.0.0.1:34290: read: connection reset by peer`), FailUnreachable, 0},
		{errors.New(`Post "https://api.telegram.org/bot4291:AAF429x/sendMessage": EOF`), FailUnreachable, 0},
		{errors.New("telegram: post to -1001429000000: unexpected EOF"), FailUnreachable, 0},
		{errors.New("slack: update D0ANA0001/1700000000.429000: EOF"), FailUnreachable, 0},
		{errors.New("discord: 429 Too Many Requests"), FailUnreachable, 0},
		{errors.New("rate limit exceeded"), FailUnreachable, 0},
		{RetryAfter(0, errors.New("discord: 429 Too Many Requests")), FailRateLimited, 0},
		{fmt.Errorf("slack: post: %w", RetryAfter(1500*time.Millisecond, errors.New("ratelimited"))), FailRateLimited, 1500 * time.Millisecond},
		{fmt.Errorf("post to 127.0.0.1:42951: %w", ErrRateLimited), FailRateLimited, 0},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), FailTimeout, 0},
		{Permanent(errors.New("channel_not_found (429 in its text)")), FailPermanent, 0},
		{Permanent(RetryAfter(time.Second, errors.New("both"))), FailPermanent, 0},
		{fmt.Errorf("wrapped: %w", typed), FailTimeout, 0},
	} {
		f := Classify(c.err)
		if f.Class != c.want || f.RetryAfter != c.after || !errors.Is(f, c.err) && !errors.Is(c.err, f) {
			t.Errorf("Classify(%q) = %q after %s (err %v), want %q after %s", c.err, f.Class, f.RetryAfter, f.Err, c.want, c.after)
		}
		var as *Failure
		if !errors.As(fmt.Errorf("attempt: %w", f), &as) || as != f {
			t.Errorf("errors.As does not find the Failure of %q", c.err)
		}
		if text := f.Text(); internals.MatchString(text) || strings.Contains(text, "/") {
			t.Errorf("Classify(%q).Text() = %q, which names an address, a URL or a path", c.err, text)
		}
	}
	if f := Classify(nil); f != nil {
		t.Errorf("Classify(nil) = %v, want nil", f)
	}
	if f := Classify(fmt.Errorf("wrapped: %w", typed)); f != typed {
		t.Errorf("Classify of a wrapped *Failure = %v, want the Failure itself", f)
	}
}

// A copy's last_error is the class and one short sentence: the platform's
// reason for a refusal when it is plain words, never a URL, an address or
// a path from the error.
func TestFailureText(t *testing.T) {
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
		{"rate limited without one", RetryAfter(0, errors.New("telegram: post to 127.0.0.1:9999: Too Many Requests")), "rate limited: " + textSlowDown},
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
			f := Classify(c.err)
			if got := string(f.Class) + ": " + f.Text(); got != c.want {
				t.Errorf("Classify(%q) shows %q, want %q", c.err, got, c.want)
			}
		})
	}
}

// A last error stored with its class in its text, as versions before
// ErrorClass did, is read as a class and a text, and shown as it was
// then; one that names internals, as versions before short last errors
// stored, gives way to its class's sentence.
func TestDecodeLastError(t *testing.T) {
	for _, c := range []struct {
		stored, state string
		attempts      int
		class         FailureClass
		text, line    string
	}{
		{`unreachable: Post "http://10.0.0.5:8080/bot<token>/sendMessage": dial tcp 10.0.0.5:8080: connect: connection refused`, TaskRetrying, 1,
			FailUnreachable, textUnreachable, "unreachable: " + textUnreachable},
		{`gave up after 4 attempts: timeout: Post "https://slack.com/api/chat.postMessage": context deadline exceeded`, TaskFailed, 4,
			FailTimeout, textTimeout, "gave up after 4 attempts: timeout: " + textTimeout},
		{"permanent: telegram: post to 127.0.0.1:8081: Bad Request: chat not found", TaskFailed, 1,
			FailPermanent, textRefused, "permanent: " + textRefused},
		{"rate limited: HTTP 429 from [::1]:443", TaskRetrying, 2, FailRateLimited, textSlowDown, "rate limited: " + textSlowDown},
		{"rate limited: the platform asked to wait 3s", TaskRetrying, 2, FailRateLimited, "the platform asked to wait 3s", "rate limited: the platform asked to wait 3s"},
		{"permanent: chat not found", TaskFailed, 1, FailPermanent, "chat not found", "permanent: chat not found"},
		{"gave up after 3 attempts: unreachable: " + textUnreachable, TaskFailed, 3, FailUnreachable, textUnreachable, "gave up after 3 attempts: unreachable: " + textUnreachable},
		{"the question no longer exists", TaskDropped, 0, "", "the question no longer exists", "the question no longer exists"},
		{"dial tcp 10.0.0.5:80: refused", TaskRetrying, 1, "", "the call to the platform failed", "the call to the platform failed"},
	} {
		class, text := DecodeLastError(c.stored)
		task := PlatformTask{State: c.state, Attempts: c.attempts, ErrorClass: class, LastError: text}
		if class != c.class || text != c.text || task.ErrorLine() != c.line {
			t.Errorf("DecodeLastError(%q) = %q, %q, shown %q; want %q, %q, shown %q", c.stored, class, text, task.ErrorLine(), c.class, c.text, c.line)
		}
	}
}

// FuzzDecodeLastError holds the reading of older last errors to what it
// promises for any stored text: a class that is empty or known, and a
// text that names no address, URL or network operation.
func FuzzDecodeLastError(f *testing.F) {
	for _, s := range []string{"", "timeout: x", "gave up after 3 attempts: unreachable: dial tcp 10.0.0.5:80",
		"permanent: chat not found", "rate limited: [::1]:443", "the question no longer exists", "gave up", "gave up: : ", "gave up 10.0.0.5: x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		class, text := DecodeLastError(s)
		if class != "" && !class.Valid() {
			t.Fatalf("DecodeLastError(%q) gave class %q", s, class)
		}
		if internals.MatchString(text) {
			t.Fatalf("DecodeLastError(%q) gave text %q, which names internals", s, text)
		}
	})
}

// A task shows its failure as it always did: the class apart (a copy's
// error_class) beside the text, or in one line with the class (an edit's
// last error, an unsupported question's reason), with "gave up after N
// attempts" when a retryable failure reached the deadline.
func TestTaskErrorLine(t *testing.T) {
	for _, c := range []struct {
		task       PlatformTask
		gaveUp     bool
		text, line string
	}{
		{PlatformTask{State: TaskRetrying, Attempts: 2, ErrorClass: FailTimeout, LastError: textTimeout},
			false, textTimeout, "timeout: " + textTimeout},
		{PlatformTask{State: TaskFailed, Attempts: 4, ErrorClass: FailUnreachable, LastError: textUnreachable},
			true, "gave up after 4 attempts: " + textUnreachable, "gave up after 4 attempts: unreachable: " + textUnreachable},
		{PlatformTask{State: TaskFailed, Attempts: 1, ErrorClass: FailPermanent, LastError: "chat not found"},
			false, "chat not found", "permanent: chat not found"},
		{PlatformTask{State: TaskDropped, LastError: "no copy to edit"}, false, "no copy to edit", "no copy to edit"},
		{PlatformTask{State: TaskDone, Attempts: 1}, false, "", ""},
	} {
		if got := c.task.GaveUp(); got != c.gaveUp {
			t.Errorf("%+v: GaveUp = %v, want %v", c.task, got, c.gaveUp)
		}
		if got := c.task.ErrorText(); got != c.text {
			t.Errorf("%+v: ErrorText = %q, want %q", c.task, got, c.text)
		}
		if got := c.task.ErrorLine(); got != c.line {
			t.Errorf("%+v: ErrorLine = %q, want %q", c.task, got, c.line)
		}
	}
}
