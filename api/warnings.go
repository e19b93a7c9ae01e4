package api

import (
	"encoding/json"
	"fmt"

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
