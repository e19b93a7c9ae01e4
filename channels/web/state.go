package web

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// openPage is how many open questions one answer of /inbox/state holds;
// the page asks for the next ones with the cursor it got.
const openPage = 100

// openRead bounds how many open questions after a page are counted;
// beyond it the count of the rest is a lower bound (OpenMoreCapped).
const openRead = broker.MaxInboxCount

// state is what GET /inbox/state returns: everything the page shows.
type state struct {
	// User is who acts on the page: the signed-in person's name, or the
	// name answers are recorded under.
	User string `json:"user"`
	// Person is the signed-in person's id, empty when nobody signed in
	// as a person.
	Person  string `json:"person,omitempty"`
	Login   bool   `json:"login,omitempty"`
	Signout bool   `json:"signout,omitempty"`
	// Tokens and SSO, with Login, say how the sign-in page may sign in:
	// with a token, and with single sign-on ("available", or
	// "unavailable" while the provider does not answer).
	Tokens bool   `json:"tokens,omitempty"`
	SSO    string `json:"sso,omitempty"`
	// Open is a page of open questions, newest first: the newest
	// openPage, or with ?before= the openPage after that cursor.
	Open []view `json:"open"`
	// OpenMore is how many open questions follow this page, and
	// OpenCursor (when OpenMore > 0) the ?before= that reads them.
	// OpenMoreCapped says that there are at least OpenMore.
	OpenMore       int    `json:"open_more"`
	OpenCursor     string `json:"open_cursor,omitempty"`
	OpenMoreCapped bool   `json:"open_more_capped,omitempty"`
	// History holds the recently resolved questions; empty on a page
	// read with ?before=.
	History []view `json:"history"`
	// HistoryLimit is how many resolved questions the page keeps.
	HistoryLimit int `json:"history_limit"`
}

// serveState returns the open and recent questions, read from the store:
// the first page of open questions, or with ?before=<cursor> the page
// after that cursor (without the history).
func (c *Channel) serveState(w http.ResponseWriter, r *http.Request) {
	who, ok, err := c.auth.who(r, c.now())
	if err != nil {
		c.log.Error("check sign-in", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: c.words(identity{}, r).T("inbox.reply.store_check")})
		return
	}
	if !ok {
		writeJSON(w, http.StatusUnauthorized, c.signInState())
		return
	}
	var before *openCursor
	if v := r.URL.Query().Get("before"); v != "" {
		cur, err := parseCursor(v)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, refused(c.words(who, r), err))
			return
		}
		before = &cur
	}
	st, err := c.state(r.Context(), before, c.zoneOf(who, r), readerOf(who, r))
	if err != nil {
		c.log.Error("read inbox state", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: c.words(who, r).T("inbox.reply.store_read")})
		return
	}
	st.User = who.Name
	if who.Person != nil {
		st.Person = who.Person.ID
	}
	writeJSON(w, http.StatusOK, st)
}

// state reads a page of the open questions posted to "web", the newest
// or those after before, and on the first page the recent history, from
// the store's inbox indexes (broker.Inbox): a page costs the same however
// many questions the store keeps. Only the questions read are rendered,
// with times in loc, in rd's language (lang.go).
func (c *Channel) state(ctx context.Context, before *openCursor, loc *time.Location, rd reader) (state, error) {
	open, err := c.lister.InboxPage(ctx, broker.InboxQuery{Channel: Name, After: before, Limit: openPage, Count: openRead})
	if err != nil {
		return state{}, fmt.Errorf("web: list open questions: %w", err)
	}
	var done broker.InboxPage
	if before == nil {
		done, err = c.lister.InboxPage(ctx, broker.InboxQuery{Channel: Name, Resolved: true, Limit: c.cfg.History})
		if err != nil {
			return state{}, fmt.Errorf("web: list recent questions: %w", err)
		}
	}
	now := c.now()
	st := state{User: c.userName, Signout: !c.auth.open(), Open: []view{}, History: []view{}, HistoryLimit: c.cfg.History}
	// A question that ended between the two reads is in both; the page
	// keeps the view of higher rank, its end.
	for _, q := range open.Questions {
		locale := c.cardLocale(q, rd)
		v := renderIn(q, now, loc, locale)
		v.Copies = c.copiesOf(ctx, q, locale)
		st.Open = append(st.Open, v)
	}
	if open.More > 0 {
		st.OpenMore, st.OpenCursor = open.More, cursorText(cursorOf(open.Questions[len(open.Questions)-1]))
		st.OpenMoreCapped = open.More >= openRead
	}
	for _, q := range done.Questions {
		locale := c.cardLocale(q, rd)
		v := renderIn(q, now, loc, locale)
		v.Copies = c.copiesOf(ctx, q, locale)
		c.addConversation(ctx, q, &v)
		st.History = append(st.History, v)
	}
	return st, nil
}

// serveEvents streams changed questions to one page until it leaves, the
// hub drops it, or the inbox closes. Idle streams get a comment line every
// heartbeat.
func (c *Channel) serveEvents(w http.ResponseWriter, r *http.Request) {
	who, ok := c.signedIn(w, r)
	if !ok {
		return
	}
	events, ok := c.hub.subscribe(c.zoneOf(who, r), readerOf(who, r))
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: c.words(who, r).T("inbox.reply.closing")})
		return
	}
	defer c.hub.unsubscribe(events)
	c.pageOpened(r.Context())
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n: connected\n\n"); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}
	beat := time.NewTicker(c.beat)
	defer beat.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			_, err = fmt.Fprintf(w, "event: question\ndata: %s\n\n", ev)
		case <-beat.C:
			_, err = fmt.Fprint(w, ": heartbeat\n\n")
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}
