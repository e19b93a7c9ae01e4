package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// warnedResult is the result of a question that ended during its ask's
// wait, with the warnings of the ask ("nobody is watching the web inbox;
// …"), so that an agent is told whatever the outcome of the wait.
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
	out := make([]byte, 0, len(res)+len(list)+13)
	out = append(out, res[:len(res)-1]...)
	if len(res) > 2 {
		out = append(out, ',')
	}
	out = append(append(out, `"warnings":`...), list...)
	return append(out, '}'), nil
}

// The headers of an ask's warnings. A waiting ask whose question was
// warned sends them at once in an informational 103 (Early Hints)
// response, before it waits, and again on its final response, whose body
// lists the warnings too: a client that reads informational responses
// hears the warning while it waits, and one that does not loses nothing.
const (
	// HeaderWarning is one warning, percent-encoded where it is not
	// printable ASCII (warningHeaderValue); repeated for each warning.
	HeaderWarning = "X-Askbridge-Warning"
	// HeaderQuestion is the id of the question warned of.
	HeaderQuestion = "X-Askbridge-Question"
)

// warnHeaders sets the warning headers of question id on h.
func warnHeaders(h http.Header, id string, warnings []string) {
	vs := make([]string, len(warnings))
	for i, w := range warnings {
		vs[i] = warningHeaderValue(w)
	}
	h[HeaderWarning] = vs
	h[HeaderQuestion] = []string{id}
}

// warningHeaderValue is warning as a header value: each byte outside
// printable ASCII, and "%", percent-encoded ("%E2%80%A6" for "…"), so that
// url.PathUnescape reads it back.
func warningHeaderValue(warning string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(warning); i++ {
		c := warning[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
