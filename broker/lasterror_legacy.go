package broker

import (
	"regexp"
	"strings"
)

// DecodeLastError reads the last error of a task stored before tasks
// kept their error's class apart (PlatformTask.ErrorClass), when the
// class led the text: "timeout: the platform did not answer in time",
// "gave up after 3 attempts: unreachable: …", or a reason without a class
// ("the question no longer exists"). It returns the class and the text as
// they are kept now; "gave up after N attempts" goes, since a failed
// task's state and class say it (PlatformTask.GaveUp). A text that names
// internals (an address, a URL), as versions before short last errors
// stored, gives way to its class's sentence. The stores call it on a task
// read with a last error and no class; it goes once no store holds tasks
// written before the class was kept apart.
func DecodeLastError(s string) (FailureClass, string) {
	rest := s
	if m := gaveUp.FindString(s); m != "" {
		rest = s[len(m):]
	}
	for _, c := range []FailureClass{FailPermanent, FailTimeout, FailRateLimited, FailUnreachable} {
		if text, ok := strings.CutPrefix(rest, string(c)+": "); ok {
			if internals.MatchString(text) {
				text = c.sentence()
			}
			return c, text
		}
	}
	if internals.MatchString(s) {
		prefix := ""
		if rest != s {
			prefix = s[:len(s)-len(rest)]
		}
		return "", prefix + "the call to the platform failed"
	}
	return "", s
}

// gaveUp finds the head of a last error that gave up at the deadline.
var gaveUp = regexp.MustCompile(`^gave up after \d+ attempts: `)

// internals finds what a last error must not show: a URL, an IP address,
// a host:port, a network operation.
var internals = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://|\b\d{1,3}(\.\d{1,3}){3}\b|\[[0-9a-f:]*:[0-9a-f:]*\]|[a-z0-9]:\d{2,5}\b|\b(dial|read|write) (tcp|udp)`)
