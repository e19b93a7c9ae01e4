package broker

import (
	"fmt"
	"strconv"
	"strings"
)

// PromptRef names one prompt of one question: the question's id, the
// prompt's 0-based index, and how many prompts the question has. It is
// all a channel needs to build a command for the prompt (FormatOption,
// FormatToggle, …) without the question itself, so a button, a custom id
// or a modal carries a PromptRef and nothing else of the question.
//
// It is written two ways. Target is the form of the command grammar:
// "k7m2qx" for a question of one prompt, "k7m2qx.2" for the second prompt
// of a dialog. String adds the count for data a channel keeps opaque
// (callback data, custom ids): "k7m2qx.2/3", read back by ParsePromptRef.
type PromptRef struct {
	ID string
	// Index is the 0-based prompt.
	Index int
	// Count is how many prompts the question has, 1–MaxPrompts.
	Count int
}

// Ref returns the reference of prompt i of q.
func (q *Question) Ref(i int) PromptRef {
	return PromptRef{ID: q.ID, Index: i, Count: len(q.Prompts)}
}

// Target returns the prompt as commands name it: the bare id for a
// question of one prompt, "<id>.<n>" (n 1-based) in a dialog.
func (r PromptRef) Target() string {
	if r.Count > 1 {
		return r.ID + "." + strconv.Itoa(r.Index+1)
	}
	return r.ID
}

// String returns "<id>.<n>/<count>", n 1-based: "k7m2qx.2/3".
func (r PromptRef) String() string {
	return r.ID + "." + strconv.Itoa(r.Index+1) + "/" + strconv.Itoa(r.Count)
}

// Valid reports whether r names a prompt that can exist: a well-formed
// id, a count of 1–MaxPrompts and an index below the count.
func (r PromptRef) Valid() bool {
	return ValidID(r.ID) && r.Count >= 1 && r.Count <= MaxPrompts && r.Index >= 0 && r.Index < r.Count
}

// ParsePromptRef reads the String form of a PromptRef, "k7m2qx.2/3", or
// says what is wrong with s.
func ParsePromptRef(s string) (PromptRef, error) {
	target, count, ok := strings.Cut(s, "/")
	if !ok {
		return PromptRef{}, fmt.Errorf("%w: prompt reference %q has no prompt count: write it as k7m2qx.2/3", ErrInvalid, s)
	}
	id, n, err := parseTarget(target)
	if err != nil {
		return PromptRef{}, err
	}
	if n == 0 {
		return PromptRef{}, fmt.Errorf("%w: prompt reference %q has no prompt number: write it as %s.1/%s", ErrInvalid, s, id, count)
	}
	c, err := strconv.Atoi(count)
	if err != nil || c < 1 || c > MaxPrompts || strconv.Itoa(c) != count {
		return PromptRef{}, fmt.Errorf("%w: prompt reference %q: the prompt count after the slash must be 1–%d", ErrInvalid, s, MaxPrompts)
	}
	if n > c {
		return PromptRef{}, fmt.Errorf("%w: prompt reference %q names prompt %d of a question with %d", ErrInvalid, s, n, c)
	}
	return PromptRef{ID: id, Index: n - 1, Count: c}, nil
}

// Given returns the answer a person gave to prompt i of a pending dialog
// (its Progress), or nil when there is none yet.
func (q *Question) Given(i int) *Answer {
	if i >= 0 && i < len(q.Progress) {
		return q.Progress[i]
	}
	return nil
}

// NextOpen returns the index of the first prompt of q that has no answer
// yet, or -1 when every prompt has one. "None left" is always -1: a
// pending dialog reaches it only for the moment between its last answer
// and its resolution. NextOpen looks at the answers given so far
// (Progress), not at the outcome of a resolved question.
func (q *Question) NextOpen() int {
	for i := range q.Prompts {
		if q.Given(i) == nil {
			return i
		}
	}
	return -1
}

// Open reports whether prompt i of q still takes an answer: q is pending
// and nobody has answered the prompt yet.
func (q *Question) Open(i int) bool {
	return q.Status == StatusPending && i >= 0 && i < len(q.Prompts) && q.Given(i) == nil
}
