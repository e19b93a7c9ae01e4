package web

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// openCursor marks where a page of open questions ended: the last
// question shown. Open questions are ordered newest first, by creation
// time then id, so the questions after a cursor stay the same while new
// ones arrive: a new question is newer than every cursor.
type openCursor struct {
	created time.Time // to the millisecond, as the stores keep it
	id      string
}

func cursorOf(q *broker.Question) openCursor {
	return openCursor{created: q.CreatedAt.Truncate(time.Millisecond), id: q.ID}
}

// String is the cursor as the page sends it back: "<unix ms>.<id>".
func (c openCursor) String() string {
	return strconv.FormatInt(c.created.UnixMilli(), 10) + "." + c.id
}

var errCursor = errors.New("before: not a cursor this inbox gave out (it looks like 1719912345678.k7m2qx)")

// parseCursor reads a cursor the page sent.
func parseCursor(s string) (openCursor, error) {
	ms, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || n < 0 || id == "" || len(id) > 128 {
		return openCursor{}, errCursor
	}
	return openCursor{created: time.UnixMilli(n), id: id}, nil
}

// newer orders open questions: a before b when a is newer.
func newer(a, b openCursor) int {
	if c := b.created.Compare(a.created); c != 0 {
		return c
	}
	return strings.Compare(b.id, a.id)
}

// pageOf sorts qs newest first and returns the openPage after before (the
// first page when before is nil), and how many follow that page.
func pageOf(qs []*broker.Question, before *openCursor) (page []*broker.Question, more int) {
	qs = slices.Clone(qs)
	slices.SortFunc(qs, func(a, b *broker.Question) int { return newer(cursorOf(a), cursorOf(b)) })
	start := 0
	if before != nil {
		start, _ = slices.BinarySearchFunc(qs, *before, func(q *broker.Question, c openCursor) int { return newer(cursorOf(q), c) })
		if start < len(qs) && newer(cursorOf(qs[start]), *before) == 0 {
			start++ // the cursor's own question was on the page before
		}
	}
	end := min(start+openPage, len(qs))
	return qs[start:end], len(qs) - end
}
