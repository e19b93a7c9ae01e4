package web

import (
	"net/http"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// reader is what the inbox knows of a page's language: the signed-in
// person's locale (people[].locale) and the one the browser asks for
// (?lang=, else its Accept-Language header). Either may be "".
type reader struct {
	person  string
	browser string
}

// readerOf is the language of who's page asking with r.
func readerOf(who identity, r *http.Request) reader {
	rd := reader{browser: i18n.Negotiate(r.URL.Query().Get("lang"))}
	if rd.browser == "" {
		rd.browser = i18n.Negotiate(r.Header.Get("Accept-Language"))
	}
	if who.Person != nil {
		rd.person = who.Person.Locale
	}
	return rd
}

// cardLocale is the language of q's card on rd's page: the person's, else
// the route's or the channel's (broker.Languages), else the browser's,
// else English ("").
func (c *Channel) cardLocale(q *broker.Question, rd reader) string {
	if rd.person != "" {
		return rd.person
	}
	if l := c.langs.Locale(q, Name); l != "" {
		return l
	}
	if c.locale != "" {
		return c.locale
	}
	return rd.browser
}

// pageLocale is the language of the inbox's own words on rd's page: the
// person's, else the channel's, else the browser's, else English.
func (c *Channel) pageLocale(rd reader) string {
	for _, l := range []string{rd.person, c.locale, rd.browser} {
		if l != "" {
			return l
		}
	}
	return i18n.English
}

// pageStrings is what GET /inbox/strings returns: the words of the page
// itself (i18n.InboxPrefix) in the reader's language, by message id.
type pageStrings struct {
	Locale  string            `json:"locale"`
	Strings map[string]string `json:"strings"`
}

// serveStrings answers the page's words in the language of whoever asks:
// the signed-in person's, else the inbox's, else the browser's (?lang=,
// Accept-Language), else English. It needs no sign-in, since the
// sign-in page reads it too; a store that cannot say who is signed in
// leaves the person out.
func (c *Channel) serveStrings(w http.ResponseWriter, r *http.Request) {
	who, _, _ := c.auth.who(r, c.now())
	locale := c.pageLocale(readerOf(who, r))
	out := pageStrings{Locale: locale, Strings: map[string]string{}}
	for id, f := range i18n.Messages(locale) {
		if strings.HasPrefix(id, i18n.InboxPrefix) {
			out.Strings[id] = f.Other
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Vary", "Accept-Language, Cookie")
	writeJSON(w, http.StatusOK, out)
}
