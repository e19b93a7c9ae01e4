package broker

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// The sentences of a copy's last_error, after its class (errClass).
const (
	textTimeout     = "the platform did not answer in time"
	textUnreachable = "the platform could not be reached or did not take the call"
	textRefused     = "the platform refused it for good"
	textSlowDown    = "the platform asked to slow down"
)

// refusedFor says why the platform refused a call for good, in the
// platform's own words when they are plain (platformReason), else in a
// sentence of the bridge's.
func refusedFor(err error) string {
	if r := platformReason(err); r != "" {
		return r
	}
	return textRefused
}

// slowDown says how long a rate-limited call must wait, when the
// platform said.
func slowDown(err error) string {
	if after, ok := RetryAfterOf(err); ok && after > 0 {
		return fmt.Sprintf("the platform asked to wait %s", after.Round(time.Millisecond))
	}
	return textSlowDown
}

// platformReason returns the platform's own words for a refusal, found in
// the innermost error err wraps: the last part of its message ("Bad
// Request: chat not found" gives "chat not found", Slack's
// "channel_not_found" stays), or in a JSON body it carries, its "message",
// "description" or "error". It returns "" unless they are plain words
// (plainText): a channel's error may name a URL, an address or a path.
func platformReason(err error) string {
	for {
		inner := unwrapOne(err)
		if inner == nil {
			break
		}
		err = inner
	}
	s := err.Error()
	if i := strings.IndexByte(s, '{'); i >= 0 {
		s = jsonReason(s[i:])
	}
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	s = strings.TrimSpace(s)
	if !plainText(s) {
		return ""
	}
	return s
}

// unwrapOne returns the error err wraps, the first of several.
func unwrapOne(err error) error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		if es := u.Unwrap(); len(es) > 0 {
			return es[0]
		}
	}
	return nil
}

// jsonReason returns the reason a platform's JSON answer s gives, or "".
func jsonReason(s string) string {
	var body map[string]json.RawMessage
	if json.NewDecoder(strings.NewReader(s)).Decode(&body) != nil {
		return ""
	}
	for _, k := range []string{"message", "description", "error"} {
		var v string
		if json.Unmarshal(body[k], &v) == nil && v != "" {
			return v
		}
	}
	return ""
}

// maxReason bounds a platform's reason kept in last_error.
const maxReason = 100

// plainText reports whether s is a few plain words, safe to show an agent
// or a person: letters, digits, spaces and _ - , ' ( ) ! ?, with periods
// only where a sentence or an abbreviation ends them. An address, a URL,
// a host or file name, a path or a token is not.
func plainText(s string) bool {
	if s == "" || len(s) > maxReason {
		return false
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == ' ', strings.ContainsRune("_-,'()!?", r):
		case r == '.':
			if i+1 < len(s) && s[i+1] != ' ' {
				return false // 10.0.0.5, api.example.com, a file name
			}
		default:
			return false
		}
	}
	return true
}

// internals finds what a last_error must not show: a URL, an IP address,
// a host:port, a network operation.
var internals = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://|\b\d{1,3}(\.\d{1,3}){3}\b|\[[0-9a-f:]*:[0-9a-f:]*\]|[a-z0-9]:\d{2,5}\b|\b(dial|read|write) (tcp|udp)`)

// publicError returns last, a task's last_error, as people and agents
// are shown it: a text that names internals, as versions before short
// last_errors stored, gives way to its class's sentence.
func publicError(last string) string {
	if !internals.MatchString(last) {
		return last
	}
	prefix, class, gaveUp := "", last, strings.HasPrefix(last, "gave up")
	if i := strings.Index(last, ": "); gaveUp && i > 0 {
		prefix, class = last[:i+2], last[i+2:]
	}
	c, _ := splitClass(class)
	text := textUnreachable
	switch c {
	case "permanent":
		text = textRefused
	case "rate limited":
		text = textSlowDown
	case "timeout":
		text = textTimeout
	case "":
		return prefix + "the call to the platform failed"
	}
	return prefix + c + ": " + text
}
