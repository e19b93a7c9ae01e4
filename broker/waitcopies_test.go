package broker_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func copyStates(t *testing.T, e *env, id string) []string {
	t.Helper()
	cs, err := e.b.Copies(context.Background(), id)
	if err != nil {
		t.Fatalf("Copies: %v", err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.Target.String()+"="+c.State)
	}
	return out
}

// waitCopies waits until the copies of id are in the states want.
func waitCopies(t *testing.T, e *env, id string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := copyStates(t, e, id)
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("copies of %s = %v, want %v", id, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
