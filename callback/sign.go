package callback

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a callback request.
const (
	// HeaderDelivery is the delivery id: the same on every retry of one
	// delivery, so receivers deduplicate with it.
	HeaderDelivery = "X-Askbridge-Delivery"
	// HeaderTimestamp is the time of the attempt in Unix seconds.
	HeaderTimestamp = "X-Askbridge-Timestamp"
	// HeaderSignature is "sha256=" followed by the hex HMAC-SHA256 of
	// "<timestamp>.<body>" under the agent's callback secret.
	HeaderSignature = "X-Askbridge-Signature"
	// HeaderQuestion is the id of the question the result belongs to.
	HeaderQuestion = "X-Askbridge-Question"
	// HeaderAttempt counts the attempts of this delivery, from 1.
	HeaderAttempt = "X-Askbridge-Attempt"
)

// signaturePrefix starts every signature value.
const signaturePrefix = "sha256="

// Errors of Verify; check them with errors.Is.
var (
	// ErrNoSignature: the request lacks the signature or timestamp header.
	ErrNoSignature = errors.New("callback: missing signature")
	// ErrBadSignature: the signature does not match the body and timestamp.
	ErrBadSignature = errors.New("callback: signature does not match")
	// ErrStale: the timestamp is further from now than the allowed age.
	ErrStale = errors.New("callback: timestamp too old or too far in the future")
)

// Sign returns the signature header value of body sent at ts under secret:
// "sha256=" + hex(HMAC-SHA256(secret, "<unix seconds>.<body>")).
func Sign(secret string, ts time.Time, body []byte) string {
	return signaturePrefix + hex.EncodeToString(mac(secret, strconv.FormatInt(ts.Unix(), 10), body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a callback request as a receiver should: the timestamp is
// within maxAge of now (either way), and the signature header holds an
// HMAC-SHA256 of "<timestamp>.<body>" under secret, compared in constant
// time. The header may carry several comma-separated signatures (during a
// secret rotation); one match is enough. body must be the raw bytes read
// from the request, before any JSON decoding.
func Verify(secret string, header http.Header, body []byte, maxAge time.Duration, now time.Time) error {
	ts, sig := header.Get(HeaderTimestamp), header.Get(HeaderSignature)
	if ts == "" || sig == "" {
		return fmt.Errorf("%w: need both %s and %s", ErrNoSignature, HeaderTimestamp, HeaderSignature)
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s %q is not Unix seconds", ErrBadSignature, HeaderTimestamp, ts)
	}
	if age := now.Sub(time.Unix(secs, 0)).Abs(); age > maxAge {
		return fmt.Errorf("%w: %s is %s from now, more than %s", ErrStale, HeaderTimestamp, age.Truncate(time.Second), maxAge)
	}
	want := mac(secret, ts, body)
	for _, v := range strings.Split(sig, ",") {
		got, ok := strings.CutPrefix(strings.TrimSpace(v), signaturePrefix)
		if !ok {
			continue
		}
		raw, err := hex.DecodeString(got)
		if err == nil && hmac.Equal(raw, want) {
			return nil
		}
	}
	return ErrBadSignature
}
