package broker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// auditChainV1 begins the text the hash of an audit entry covers: the
// version of the encoding, so that a later one can be told apart.
const auditChainV1 = "askbridge-audit-v1\n"

// SealAudit makes e entry number seq (1-based) of its question's trail,
// after the entry whose Hash is prev ("" for the first): it sets Seq and
// Prev, brings the times to UTC milliseconds (as stores keep them), and
// sets Hash to the hex SHA-256 of auditChainV1 followed by the JSON of e
// with Hash empty. It returns the JSON of the sealed entry, which is what
// a store keeps. The caller sets Question and Agent before: the hash
// covers them.
func SealAudit(prev string, seq int64, e *AuditEntry) ([]byte, error) {
	e.Seq, e.Prev, e.Hash = seq, prev, ""
	e.At = e.At.UTC().Truncate(time.Millisecond)
	if e.ExpiresAt != nil {
		t := e.ExpiresAt.UTC().Truncate(time.Millisecond)
		e.ExpiresAt = &t
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("broker: seal audit entry: %w", err)
	}
	e.Hash = auditDigest(body)
	// The sealed JSON is body with the hash as its last member (Hash is
	// the struct's last field, left out while empty).
	out := make([]byte, 0, len(body)+len(`,"hash":""`)+sha256.Size*2)
	out = append(out, body[:len(body)-1]...)
	out = append(out, `,"hash":"`...)
	out = append(out, e.Hash...)
	out = append(out, `"}`...)
	return out, nil
}

// auditDigest is the hex SHA-256 of an entry's JSON without its hash.
func auditDigest(body []byte) string {
	h := sha256.New()
	h.Write([]byte(auditChainV1))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// AuditHash returns the hash e should carry: that of its content as it
// stands, Hash aside.
func AuditHash(e AuditEntry) (string, error) {
	e.Hash = ""
	body, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("broker: audit hash: %w", err)
	}
	return auditDigest(body), nil
}

// VerifyAudit checks the trail of one question, oldest first: each entry
// carries the hash of its content, follows the entry before (Seq one
// more, Prev its Hash) and names the same question. ok is true when all
// hold. Otherwise bad is the seq of the first entry that was changed,
// removed or moved (the seq the trail lacks, for a removed or moved
// one), and why says what is wrong in words. Removing the newest entries
// leaves a shorter chain that is whole: the chain alone cannot show it.
func VerifyAudit(entries []AuditEntry) (ok bool, bad int, why string) {
	prev := ""
	question := ""
	for i, e := range entries {
		n := int64(i + 1)
		if e.Hash == "" {
			return false, int(n), fmt.Sprintf("entry %d (%s) has no hash: it was recorded before the audit chain, so nothing vouches for it", n, e.Kind)
		}
		if i == 0 {
			question = e.Question
		} else if e.Question != question {
			return false, int(n), fmt.Sprintf("entry %d (%s) belongs to question %s, not %s: it was moved here", n, e.Kind, e.Question, question)
		}
		switch {
		case e.Seq > n:
			return false, int(n), fmt.Sprintf("entry %d is missing: entry %d is followed by entry %d (removed or moved)", n, n-1, e.Seq)
		case e.Seq < n:
			return false, int(n), fmt.Sprintf("entry %d is out of place: entry %d (%s) comes where entry %d belongs (moved or repeated)", n, e.Seq, e.Kind, n)
		}
		h, err := AuditHash(e)
		if err != nil || h != e.Hash {
			return false, int(n), fmt.Sprintf("entry %d (%s) was changed: its content does not match its hash", n, e.Kind)
		}
		if e.Prev != prev && i == 0 {
			return false, 1, fmt.Sprintf("entry 1 (%s) was changed: it names an entry before it, and the first has none", e.Kind)
		}
		if e.Prev != prev {
			// Numbered in order, each matching its own hash: the entry
			// before was changed and given a new hash, or entries after
			// it were removed and the next numbered and hashed again.
			return false, int(n - 1), fmt.Sprintf("entry %d (%s) was changed, or entries after it removed: entry %d names another hash before it", n-1, entries[i-1].Kind, n)
		}
		prev = e.Hash
	}
	return true, 0, ""
}
