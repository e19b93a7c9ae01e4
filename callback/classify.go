package callback

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The classes of a failed attempt. last_error (GET
// /v1/questions/{id}/deliveries) holds a class and never the receiver's
// words or a network error's text: the agent that chose the URL reads it,
// and it must learn whether its receiver took the delivery, not what
// answers at some address. The details go to the bridge's log.
const (
	classBlocked     = "blocked"      // callbacks.allow does not allow the URL or the address
	classDNS         = "dns"          // the host name did not resolve
	classRefused     = "refused"      // nothing listens there
	classTimeout     = "timeout"      // no answer within callbacks.timeout
	classTLS         = "tls"          // the TLS handshake or the certificate failed
	classReset       = "reset"        // the connection closed before an answer
	classUnreachable = "unreachable"  // no route to the host or network
	classBadResponse = "bad response" // what came back was not HTTP
	classNetwork     = "network"      // any other failure to connect or talk
)

// outcome is what one attempt came to.
type outcome struct {
	status     int           // HTTP status, 0 when no answer came
	retryAfter time.Duration // from a Retry-After header
	class      string        // for last_error, when it did not succeed
	err        error         // why it did not succeed, in detail, for the log
	permanent  bool          // retrying cannot help
}

// classify turns an HTTP answer into an outcome: 2xx delivered; 408, 429
// and 5xx retried (after Retry-After when given); anything else final.
// The class is "http" and the status code.
func classify(resp *http.Response, now time.Time) outcome {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return outcome{status: code}
	}
	out := outcome{status: code, class: "http " + strconv.Itoa(code),
		err: fmt.Errorf("receiver answered %d %s", code, http.StatusText(code))}
	switch {
	case code >= 300 && code < 400:
		out.class += ": redirects are not followed"
		out.err = fmt.Errorf("receiver answered %d %s, to %q (redirects are not followed; configure the final URL)",
			code, http.StatusText(code), resp.Header.Get("Location"))
		out.permanent = true
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		out.retryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	default:
		out.permanent = true
	}
	return out
}

// netClass names the class of an error that came instead of an answer.
func netClass(err error) string {
	var (
		blocked *blockedError
		dnsErr  *net.DNSError
		netErr  net.Error
	)
	switch {
	case errors.As(err, &blocked):
		return classBlocked
	case errors.As(err, &dnsErr):
		return classDNS
	case isTLS(err):
		return classTLS
	case errors.Is(err, syscall.ECONNREFUSED):
		return classRefused
	case strings.Contains(err.Error(), "malformed HTTP"):
		return classBadResponse
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return classTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		strings.Contains(err.Error(), "server closed idle connection"):
		return classReset
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return classUnreachable
	}
	return classNetwork
}

// isTLS reports whether err comes from the TLS handshake or the
// receiver's certificate.
func isTLS(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &alert) ||
		errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		strings.Contains(err.Error(), "tls: ") || strings.Contains(err.Error(), "HTTP response to HTTPS client")
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
