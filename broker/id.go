package broker

import (
	"crypto/rand"
	"strings"
)

// idAlphabet has lowercase letters and digits without look-alikes
// (no 0/o, 1/l/i), so an id can be typed on a phone without doubt.
const idAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

const idLength = 6

// NewID returns a random question id of six characters from idAlphabet.
func NewID() string {
	var b [idLength]byte
	// Rejection sampling keeps every character equally likely.
	out := make([]byte, 0, idLength)
	for len(out) < idLength {
		if _, err := rand.Read(b[:]); err != nil {
			panic("broker: crypto/rand failed: " + err.Error()) // never fails on supported platforms
		}
		for _, c := range b {
			if int(c) < 256-256%len(idAlphabet) && len(out) < idLength {
				out = append(out, idAlphabet[int(c)%len(idAlphabet)])
			}
		}
	}
	return string(out)
}

// ValidID reports whether s has the form of a question id.
func ValidID(s string) bool {
	if len(s) != idLength {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune(idAlphabet, c) {
			return false
		}
	}
	return true
}
