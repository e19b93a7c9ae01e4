package sqlite_test

import (
	"encoding/json"
	"errors"

	"github.com/askbridge/askbridge/broker"
)

// sameJSON reports whether two questions encode the same.
func sameJSON(a, b *broker.Question) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// errorsIsIDTaken reports a random id that happened to be in use.
func errorsIsIDTaken(err error) bool { return errors.Is(err, broker.ErrIDTaken) }
