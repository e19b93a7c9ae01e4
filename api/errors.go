package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/broker"
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg, field string) {
	writeJSON(w, status, errorBody{Error: errorDetail{Code: code, Message: msg, Field: field}})
}

// limitRetryAfter is the Retry-After of a 429 for a limit, in seconds:
// long enough for a person to answer something, short enough that an
// agent does not wait long once there is room.
const limitRetryAfter = 30

// writeBrokerError maps the broker's errors to status codes.
func writeBrokerError(w http.ResponseWriter, err error) {
	var fe *broker.FieldError
	var ce *broker.ClosedError
	var le *broker.LimitError
	switch {
	case errors.As(err, &le):
		writeLimit(w, le)
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, "invalid", fe.Error(), fe.Field)
	case errors.As(err, &ce):
		writeJSON(w, http.StatusConflict, errorBody{Error: errorDetail{Code: "closed", Message: err.Error(), Status: ce.Question.Status}})
	case errors.Is(err, broker.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", trimSentinel(err), "")
	case errors.Is(err, broker.ErrConflict):
		writeError(w, http.StatusConflict, "conflict", trimSentinel(err), "")
	case errors.Is(err, broker.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid", trimSentinel(err), "")
	case errors.Is(err, broker.ErrForbidden):
		writeError(w, http.StatusForbidden, "forbidden", trimSentinel(err), "")
	case errors.Is(err, broker.ErrUnavailable):
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the store is unavailable; try again shortly", "")
	default:
		writeError(w, http.StatusInternalServerError, "internal", "internal error", "")
	}
}

// writeLimit answers 429 for a limit the agent reached, naming the limit
// and its setting.
func writeLimit(w http.ResponseWriter, le *broker.LimitError) {
	w.Header().Set("Retry-After", strconv.Itoa(limitRetryAfter))
	writeError(w, http.StatusTooManyRequests, "limit", le.Error()+"; try again later", "")
}

func trimSentinel(err error) string {
	s := err.Error()
	for _, e := range []error{broker.ErrConflict, broker.ErrInvalid, broker.ErrNotFound, broker.ErrForbidden} {
		s = strings.TrimPrefix(s, e.Error()+": ")
	}
	return s
}

// decode reads a JSON body strictly: unknown fields and trailing data are
// errors, and a body over the limit is a 413. It reports whether it wrote
// an error answer.
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
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
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "the request body is larger than the limit of "+sizeText(limit), "")
	case errors.As(err, &syn):
		writeError(w, http.StatusBadRequest, "malformed", "malformed JSON: "+err.Error(), "")
	case errors.As(err, &typ):
		writeError(w, http.StatusBadRequest, "invalid", typ.Field+": must be "+typ.Type.String()+", got JSON "+typ.Value, typ.Field)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		writeError(w, http.StatusBadRequest, "invalid", "unknown field "+field, field)
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "malformed", "the request body is empty; send a JSON object", "")
	default:
		if field := failingField(data, v); field != "" {
			writeError(w, http.StatusBadRequest, "invalid", field+": "+err.Error(), field)
			return true
		}
		writeError(w, http.StatusBadRequest, "malformed", "malformed JSON: "+err.Error(), "")
	}
	return true
}

// failingField finds the top-level field of v's JSON whose value its own
// decoder refuses (an invalid duration, say), so the error can name it.
func failingField(data []byte, v any) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return ""
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	for i := range t.NumField() {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		raw, ok := top[name]
		if !ok || name == "" {
			continue
		}
		if json.Unmarshal(raw, reflect.New(t.Field(i).Type).Interface()) != nil {
			return name
		}
	}
	return ""
}

func sizeText(n int64) string {
	if n%1024 == 0 {
		return strconv.FormatInt(n/1024, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
