package sqlite_test

import (
	"encoding/json"

	"github.com/askbridge/askbridge/broker"
)

// sameJSON reports whether two questions encode the same.
func sameJSON(a, b *broker.Question) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
