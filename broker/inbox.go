package broker

import (
	"context"
	"fmt"
	"time"
)

// Inbox is the role of a Store that reads what a channel's inbox shows,
// one page at a time, from indexes kept by state: the open questions
// posted to the channel by creation time, and the resolved ones by
// resolution time. A page costs the same however many questions the store
// keeps, so the web inbox reads it on every load of the page.
//
// A question belongs to a channel's inbox when it has a copy posted there
// (an in-process copy recorded by Create, or one AddMessage recorded). It
// is in the open part while pending and moves to the resolved part, in the
// step that resolves it, at its resolution time; Purge (and, on stores
// whose records expire, the expiry) takes it out.
//
// A store whose index of resolved questions is not kept per channel may
// bound how many resolved questions of every channel one page (and its
// count) passes over: a channel with copies of only a small share of them
// then finds its own among the latest that many, and a page of the
// resolved part may hold fewer than Limit while older ones exist. The
// open part is never bounded that way.
type Inbox interface {
	// InboxPage returns the page q asks for: up to q.Limit questions of
	// the part q.Resolved names, in InboxCursor order (newest first),
	// after q.After when it is set. A query that names no channel, or a
	// limit outside 1 to MaxInboxPage, gives ErrInvalid.
	InboxPage(ctx context.Context, q InboxQuery) (InboxPage, error)
}

// MaxInboxPage bounds InboxQuery.Limit, and MaxInboxCount its Count.
const (
	MaxInboxPage  = 1000
	MaxInboxCount = 10000
)

// InboxQuery asks for one page of a channel's inbox.
type InboxQuery struct {
	// Channel is the channel whose copies make the inbox ("web").
	Channel string
	// Resolved reads the resolved questions, latest resolution first;
	// otherwise the pending ones, newest first.
	Resolved bool
	// After, when set, is where the previous page ended: its last
	// question's cursor. Nil reads the first page.
	After *InboxCursor
	// Limit is how many questions the page holds at most.
	Limit int
	// Count, when above zero, asks how many questions follow the page,
	// counted up to Count (at most MaxInboxCount), so that counting costs
	// no more than that many index entries.
	Count int
}

// Check returns an ErrInvalid error naming what q lacks, or nil.
func (q InboxQuery) Check() error {
	switch {
	case q.Channel == "":
		return fmt.Errorf("%w: inbox page: no channel", ErrInvalid)
	case q.Limit < 1 || q.Limit > MaxInboxPage:
		return fmt.Errorf("%w: inbox page: limit %d is outside 1–%d", ErrInvalid, q.Limit, MaxInboxPage)
	case q.Count < 0 || q.Count > MaxInboxCount:
		return fmt.Errorf("%w: inbox page: count %d is outside 0–%d", ErrInvalid, q.Count, MaxInboxCount)
	case q.After != nil && q.After.ID == "":
		return fmt.Errorf("%w: inbox page: the cursor has no id", ErrInvalid)
	}
	return nil
}

// InboxPage is one page of a channel's inbox.
type InboxPage struct {
	Questions []*Question
	// More is how many questions follow the page, up to the query's
	// Count; 0 when the query did not ask.
	More int
}

// InboxCursor is a question's place in an inbox: the time that orders
// its part (creation for open questions, resolution for resolved ones), to
// the millisecond as the stores keep it, then its id. Newer comes first;
// of two questions of the same millisecond, the greater id.
type InboxCursor struct {
	At time.Time
	ID string
}

// OpenCursor is q's place among the open questions.
func OpenCursor(q *Question) InboxCursor {
	return InboxCursor{At: q.CreatedAt.Truncate(time.Millisecond), ID: q.ID}
}

// ResolvedCursor is q's place among the resolved questions: by its
// resolution time, or its creation time when it has none.
func ResolvedCursor(q *Question) InboxCursor {
	at := q.ResolvedAt
	if at.IsZero() {
		at = q.CreatedAt
	}
	return InboxCursor{At: at.Truncate(time.Millisecond), ID: q.ID}
}

// Compare orders cursors as an inbox lists them: negative when c comes
// before d (c is newer), zero when they are the same place.
func (c InboxCursor) Compare(d InboxCursor) int {
	if x := d.At.UnixMilli() - c.At.UnixMilli(); x != 0 {
		if x < 0 {
			return -1
		}
		return 1
	}
	switch {
	case c.ID > d.ID:
		return -1
	case c.ID < d.ID:
		return 1
	}
	return 0
}

// InboxPage reads a page of a channel's inbox from the store (Inbox).
func (b *Broker) InboxPage(ctx context.Context, q InboxQuery) (InboxPage, error) {
	return b.store.InboxPage(ctx, q)
}
