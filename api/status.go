package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// The waits of the API: how long an ask blocks when it names no wait,
// and the bound of every wait (an ask's, a get's ?wait=). Config may
// change them for one server; everything that answers in the API's name
// uses these.
const (
	DefaultWait = 30 * time.Second
	MaxWait     = 10 * time.Minute
)

// ErrorStatus is how the API answers a broker error: the HTTP status, the
// error code of the JSON body, the message a client reads, the field it
// names, and for a closed question its current state.
type ErrorStatus struct {
	Status  int
	Code    string
	Message string
	Field   string
	State   broker.Status
}

// StatusOf is the one table from the broker's errors to the API's
// answers; every answer for a broker error, of /v1/questions and of
// /v1/commands, comes from it. An error it does not know is a 500 whose
// text stays in the server's log.
func StatusOf(err error) ErrorStatus {
	var fe *broker.FieldError
	var ce *broker.ClosedError
	var le *broker.LimitError
	switch {
	case errors.As(err, &le):
		return ErrorStatus{Status: http.StatusTooManyRequests, Code: "limit", Message: le.Error() + "; try again later"}
	case errors.As(err, &fe):
		return ErrorStatus{Status: http.StatusBadRequest, Code: "invalid", Message: fe.Error(), Field: fe.Field}
	case errors.As(err, &ce):
		return ErrorStatus{Status: http.StatusConflict, Code: "closed", Message: ce.Error(), State: ce.Question.Status}
	case errors.Is(err, broker.ErrClosed):
		return ErrorStatus{Status: http.StatusConflict, Code: "closed", Message: sentence(err, broker.ErrClosed, "the question is closed")}
	case errors.Is(err, broker.ErrNotFound):
		return ErrorStatus{Status: http.StatusNotFound, Code: "not_found", Message: sentence(err, broker.ErrNotFound, "there is no such question")}
	case errors.Is(err, broker.ErrConflict):
		return ErrorStatus{Status: http.StatusConflict, Code: "conflict", Message: sentence(err, broker.ErrConflict, "the request conflicts with the question as it stands")}
	case errors.Is(err, broker.ErrInvalid):
		return ErrorStatus{Status: http.StatusBadRequest, Code: "invalid", Message: sentence(err, broker.ErrInvalid, "the request is not valid")}
	case errors.Is(err, broker.ErrForbidden):
		return ErrorStatus{Status: http.StatusForbidden, Code: "forbidden", Message: sentence(err, broker.ErrForbidden, "this key may not do that")}
	case errors.Is(err, broker.ErrNotPosted):
		return ErrorStatus{Status: http.StatusBadGateway, Code: "not_posted", Message: sentence(err, broker.ErrNotPosted, "the platform did not take the reply; try again later")}
	case errors.Is(err, broker.ErrUnavailable):
		return ErrorStatus{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "the store is unavailable; try again shortly"}
	}
	return ErrorStatus{Status: http.StatusInternalServerError, Code: "internal", Message: "internal error"}
}
