package broker

import (
	"encoding/json"
	"strings"
	"unicode"
)

// The bridge's sentences of a copy's last_error, after its class
// (Failure.Text).
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
