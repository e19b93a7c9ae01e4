package web

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// openCursor marks where a page of open questions ended: the last
// question shown. Open questions are ordered newest first, by creation
// time then id (broker.InboxCursor), so the questions after a cursor stay
// the same while new ones arrive: a new question is newer than every
// cursor.
type openCursor = broker.InboxCursor

func cursorOf(q *broker.Question) openCursor { return broker.OpenCursor(q) }

// cursorText is the cursor as the page sends it back: "<unix ms>.<id>".
func cursorText(c openCursor) string {
	return strconv.FormatInt(c.At.UnixMilli(), 10) + "." + c.ID
}

var errCursor = errors.New("before: not a cursor this inbox gave out (it looks like 1719912345678.k7m2qx)")

// parseCursor reads a cursor the page sent.
func parseCursor(s string) (openCursor, error) {
	ms, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || n < 0 || id == "" || len(id) > 128 {
		return openCursor{}, errCursor
	}
	return openCursor{At: time.UnixMilli(n), ID: id}, nil
}
