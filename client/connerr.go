package client

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
)

// ConnError is a request that got no answer from the bridge: nothing
// listens at the address, the name does not resolve, the connection broke
// or timed out. Its text says which, in words, with the server's address;
// Unwrap gives the network error itself.
type ConnError struct {
	// Server is the bridge's base URL, as given to New.
	Server string
	Err    error
}

func (e *ConnError) Error() string {
	return "askbridge: cannot reach the bridge at " + e.Server + ": " + netReason(e.Err)
}

// Unwrap returns the network error.
func (e *ConnError) Unwrap() error { return e.Err }

// netReason says in words why a connection failed.
func netReason(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing is listening there (is bridge serve running, and is ASKBRIDGE_SERVER right?)"
	case errors.As(err, &dns):
		return "the host name " + dns.Name + " does not resolve (check ASKBRIDGE_SERVER)"
	case errors.As(err, &cert):
		return "its TLS certificate is not trusted"
	case errors.As(err, &rec):
		return "it does not speak TLS (use http:// instead of https://)"
	case errors.As(err, &ne) && ne.Timeout():
		return "it did not answer in time"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection broke before the answer came (the bridge may be restarting)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "the network cannot reach that address"
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return "the connection failed (" + err.Error() + ")"
		}
		err = inner
	}
}
