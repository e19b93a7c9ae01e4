package api

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/askbridge/askbridge/broker"
)

// The answers an agent's cycle reads (the 202 of an ask, the answer to a
// command, a question's view) are written into a pooled buffer, with
// broker's hand-written JSON, rather than allocated by encoding/json per
// answer: the bytes are those writeJSON writes for the same values
// (TestWritersMatchWriteJSON). net/http copies what a handler writes
// into its own buffer, so the buffer goes back to the pool at once.

var respBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 2048)
	return &b
}}

// maxPooledBuf is the largest buffer kept, of an answer or of a request
// body (decode): a large one is rare, and is not worth holding on to.
const maxPooledBuf = 64 << 10

// writeAppended writes, with status, the JSON answer appendTo appends to
// a pooled buffer, and a newline as writeJSON ends with. When appendTo
// fails, the answer is a 500 that names what could not be encoded.
func writeAppended(w http.ResponseWriter, status int, what string, appendTo func([]byte) ([]byte, error)) {
	bp := respBufs.Get().(*[]byte)
	b, err := appendTo((*bp)[:0])
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not encode the "+what+": "+err.Error(), "")
	} else {
		b = append(b, '\n')
		writeBody(w, status, b)
	}
	if cap(b) <= maxPooledBuf {
		*bp = b[:0]
		respBufs.Put(bp)
	}
}

// appendPending appends the JSON of p as json.Marshal writes it; a
// deadline encoding/json would refuse is an error.
func appendPending(b []byte, p pendingBody) ([]byte, error) {
	b = broker.AppendText(append(b, `{"id":`...), p.ID)
	b = broker.AppendText(append(b, `,"status":`...), string(p.Status))
	out, ok := broker.AppendTime(append(b, `,"expires_at":`...), p.ExpiresAt)
	if !ok {
		_, err := p.ExpiresAt.MarshalJSON() // its own words for what it refuses
		return b, err
	}
	if p.Snoozes != 0 {
		out = strconv.AppendInt(append(out, `,"snoozes":`...), int64(p.Snoozes), 10)
	}
	return append(out, '}'), nil
}

// appendCommandResponse appends the JSON of out as writeJSON writes it:
// the reply's text without HTML escaping, the question as its own
// MarshalJSON writes it.
func appendCommandResponse(b []byte, out CommandResponse) ([]byte, error) {
	b = strconv.AppendBool(append(b, `{"ok":`...), out.OK)
	b = broker.AppendText(append(b, `,"reply":`...), out.Reply)
	if out.Question != nil {
		var err error
		if b, err = broker.AppendResult(append(b, `,"question":`...), out.Question); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
