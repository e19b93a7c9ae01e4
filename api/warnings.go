package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/askbridge/askbridge/broker"
)

// writeWarned writes the answer of an ask as writeAsked does, with the
// warnings the broker gave when it was asked ("nobody is watching the web
// inbox; …"): in the 202 of a pending question, and in the result of one
// that ended during the ask's wait.
func writeWarned(warnings []string) answerFunc {
	return func(_ context.Context, w http.ResponseWriter, q *broker.Question) {
		if q.Status == broker.StatusPending {
			p := pendingBody{ID: q.ID, Status: q.Status, ExpiresAt: q.ExpiresAt, Snoozes: len(q.State.Snoozes), Warnings: warnings}
			writeJSON(w, http.StatusAccepted, p)
			return
		}
		writeJSON(w, http.StatusOK, warnedResult{Result: q.Result(), Warnings: warnings})
	}
}

// warnedResult is a result with the warnings of its ask.
type warnedResult struct {
	broker.Result
	Warnings []string
}

// MarshalJSON writes the result's object with "warnings" added last.
func (v warnedResult) MarshalJSON() ([]byte, error) {
	res, err := v.Result.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if len(res) < 2 || res[len(res)-1] != '}' {
		return nil, fmt.Errorf("api: a result is not a JSON object: %s", res)
	}
	list, err := json.Marshal(v.Warnings)
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, res[:len(res)-1]...)
	if len(res) > 2 {
		out = append(out, ',')
	}
	out = append(append(out, `"warnings":`...), list...)
	return append(out, '}'), nil
}
