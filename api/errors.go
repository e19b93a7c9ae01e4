package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/jsonerr"
)

// errorBody is the JSON of every error answer.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	// Status is the question's current state on 409 answers.
	Status broker.Status `json:"status,omitempty"`
}

// writeJSON writes v as the answer with status: without HTML escaping,
// ending in a newline. A value JSON cannot carry (a time past the year
// 9999) is a 500 that names the problem, not a 2xx with a broken body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := respBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			buf.Reset()
			respBufs.Put(buf)
		}
	}()
	var err error
	switch x := v.(type) {
	case questionView:
		// Their methods return json.Marshal's compact output, which an
		// Encoder would check and copy again to the same bytes.
		err = writeMarshaled(buf, x)
	case broker.Result:
		err = writeMarshaled(buf, x)
	default:
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		err = enc.Encode(v)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not encode the answer: "+err.Error(), "")
		return
	}
	writeBody(w, status, buf.Bytes())
}

// writeMarshaled writes what m's method returns to buf, and a newline as
// an Encoder ends with.
func writeMarshaled(buf *bytes.Buffer, m json.Marshaler) error {
	data, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	buf.Write(data)
	return buf.WriteByte('\n')
}

// respBufs holds the buffers answers are encoded into before they are
// written: net/http copies what a handler writes, so a buffer goes back
// at once. maxPooledBuf is the largest buffer kept, of an answer or of a
// request body (decode): a large one is rare, and not worth holding on to.
var respBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuf = 64 << 10

// writeBody writes body, JSON that ends in a newline as writeJSON's
// does, as the answer with status.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, code, msg, field string) {
	writeJSON(w, status, errorBody{Error: errorDetail{Code: code, Message: msg, Field: field}})
}

// limitRetryAfter is the Retry-After of a 429 for a limit, in seconds:
// long enough for a person to answer something, short enough that an
// agent does not wait long once there is room.
const limitRetryAfter = 30

// writeBrokerError answers err as the status table says (StatusOf).
func writeBrokerError(w http.ResponseWriter, err error) {
	st := StatusOf(err)
	if st.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(limitRetryAfter))
	}
	writeJSON(w, st.Status, errorBody{Error: errorDetail{Code: st.Code, Message: st.Message, Field: st.Field, Status: st.State}})
}

// writeLimit answers 429 for a limit the agent reached, naming the limit
// and its setting.
func writeLimit(w http.ResponseWriter, le *broker.LimitError) {
	w.Header().Set("Retry-After", strconv.Itoa(limitRetryAfter))
	writeError(w, http.StatusTooManyRequests, "limit", le.Error()+"; try again later", "")
}

// sentence is the message of a broker error of class sentinel. The broker
// writes its refusals for the caller as "<sentinel>: <sentence>"; any
// other text came from deeper down (a store's "sqlite: get …") and is
// replaced by fallback, so no internal detail reaches a client.
func sentence(err, sentinel error, fallback string) string {
	if s, ok := strings.CutPrefix(err.Error(), sentinel.Error()+": "); ok && s != "" {
		return s
	}
	return fallback
}

// decode reads a JSON body strictly: unknown fields and trailing data are
// errors, and a body over the limit is a 413. Errors name the field with
// its position and say what was expected in words (jsonerr). It reports
// whether it wrote an error answer.
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	// The body is read into a pooled buffer: nothing decoded keeps its
	// bytes (encoding/json copies strings and raw values), nor does an
	// error answer.
	buf := bodyBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			buf.Reset()
			bodyBufs.Put(buf)
		}
	}()
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	data := buf.Bytes()
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
		if err == nil && dec.More() {
			err = errors.New("unexpected data after the JSON object")
		}
	}
	if err == nil {
		msg, field := invalidUTF8(data)
		if msg == "" {
			return false
		}
		writeError(w, http.StatusBadRequest, "invalid", msg, field)
		return true
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "the request body is larger than the limit of "+sizeText(limit), "")
		return true
	}
	p := jsonerr.Describe("the request body", data, v, err)
	code := "invalid"
	if p.Malformed {
		code = "malformed"
	}
	writeError(w, http.StatusBadRequest, code, p.Message, p.Field)
	return true
}

var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func sizeText(n int64) string {
	if n%1024 == 0 {
		return strconv.FormatInt(n/1024, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
