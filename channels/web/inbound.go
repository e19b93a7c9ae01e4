package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/jsonerr"
	"github.com/askbridge/askbridge/internal/longlived"
)

//go:embed assets
var assets embed.FS

// staticFiles returns the page's files.
func staticFiles() (fs.FS, error) {
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, fmt.Errorf("web: embedded page files: %w", err)
	}
	return static, nil
}

// maxBody bounds the JSON a page may post.
const maxBody = 16 << 10

// maxCommandLen bounds a command's text; a question's longest answer (an
// Other text) fits easily.
const maxCommandLen = 4000

// contentSecurityPolicy allows only the inbox's own files: no inline
// script, no other origin, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Handler serves the inbox: the page at "/", its files under /assets/, and
// the JSON endpoints under /inbox/. The API server mounts it at "/".
//
//	GET  /                 the page, in the reader's language (index.go)
//	GET  /inbox/state      {"user","open":[…],"open_more","open_cursor","history":[…],"history_limit"}, or 401 {"login":true};
//	                       ?before=<open_cursor> reads the next page of open questions
//	GET  /inbox/events     server-sent events: "question" with a question's view
//	                       (each write bounded by the server's write_timeout,
//	                       the stream itself not)
//	POST /inbox/command    {"text"} → {"ok","reply"}
//	POST /inbox/answer     {"text","question","prompt","files":[{"name","type","data"}]}
//	                       → {"ok","reply"}: an answer with files, data in base64
//	                       (upload.go); the only endpoint with a larger body
//	POST /inbox/say        {"question","text"} → {"ok","reply"}: a message to the
//	                       agent's session on an ended conversation question
//	                       (conversation.go)
//	POST /inbox/login      {"token"} → sets the session cookie
//	POST /inbox/logout     clears it
//	GET  /inbox/oidc/login     with single sign-on: to the provider (oidc_flow.go)
//	GET  /inbox/oidc/callback  the provider's answer → the session cookie
//	GET  /rules, POST /rules/{id}/revoke  the Rules page, with Options.Rules (rules.go)
//	GET  /manifest.webmanifest, /sw.js, /inbox/push/…  the installable app and
//	                       its notifications (push.go)
func (c *Channel) Handler() http.Handler {
	static := c.static
	files := http.FileServerFS(static)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", c.serveIndex)
	mux.Handle("GET /assets/", http.StripPrefix("/assets", noListing(files)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "icon.svg")
	})
	mux.HandleFunc("GET /inbox/state", c.serveState)
	mux.HandleFunc("GET /inbox/strings", c.serveStrings)
	mux.Handle("GET /inbox/events", longlived.Handler(http.HandlerFunc(c.serveEvents)))
	mux.HandleFunc("POST /inbox/command", c.posted(c.serveCommand))
	mux.HandleFunc("POST /inbox/answer", c.postedUpTo(maxUploadBody, c.serveAnswer))
	mux.HandleFunc("POST /inbox/say", c.posted(c.serveSay))
	mux.HandleFunc("POST /inbox/login", c.posted(c.serveLogin))
	mux.HandleFunc("POST /inbox/logout", c.posted(c.serveLogout))
	if c.sso != nil {
		mux.HandleFunc("GET "+LoginPath, c.serveSSOLogin)
		mux.HandleFunc("GET "+CallbackPath, c.serveSSOCallback)
	}
	c.rulesRoutes(mux)
	c.pushRoutes(mux)
	return headers(mux)
}

// Routes serves the inbox at the root of the server.
func (c *Channel) Routes() []channels.Route {
	return []channels.Route{{Pattern: "/", Handler: c.Handler()}}
}

// noListing answers 404 for directories instead of listing them.
func noListing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headers adds the security headers every response carries.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}

// reply is the JSON answer of the POST endpoints.
type reply struct {
	OK    bool   `json:"ok"`
	Reply string `json:"reply"`
	// Login is true when the page must ask for the token.
	Login bool `json:"login,omitempty"`
}

// words prints the inbox's own words for who's request r, in the
// language the page's words are in (lang.go): a request of nobody signed
// in (who is the zero identity) reads the inbox's locale, else the
// browser's.
func (c *Channel) words(who identity, r *http.Request) *i18n.Printer {
	return i18n.For(c.pageLocale(readerOf(who, r)))
}

// refusalWords is words for a request refused before its endpoint reads
// who sent it: whoever its session names, if the store can say.
func (c *Channel) refusalWords(r *http.Request) *i18n.Printer {
	who, _, _ := c.auth.who(r, c.now())
	return c.words(who, r)
}

// refused is the reply to a body that could not be read or decoded: the
// bridge's own reason in the reader's language, a JSON error as jsonerr
// wrote it.
func refused(p *i18n.Printer, err error) reply {
	switch {
	case errors.Is(err, errBodyTooLarge):
		return reply{Reply: p.T("inbox.reply.refused", p.T("inbox.reply.body_too_large"))}
	case errors.Is(err, errBodyUnread):
		return reply{Reply: p.T("inbox.reply.refused", p.T("inbox.reply.body_unread"))}
	}
	return reply{Reply: p.T("inbox.reply.refused", err.Error())}
}

// crossOrigin refuses requests that another site's page made a browser send.
var crossOrigin = http.NewCrossOriginProtection()

// posted guards a POST endpoint: same origin only, JSON only, bounded body.
func (c *Channel) posted(next http.HandlerFunc) http.HandlerFunc { return c.postedUpTo(maxBody, next) }

// postedUpTo is posted with a body of at most limit bytes.
func (c *Channel) postedUpTo(limit int64, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := crossOrigin.Check(r); err != nil {
			c.log.Warn("cross-site post refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"))
			writeJSON(w, http.StatusForbidden, reply{Reply: c.refusalWords(r).T("inbox.reply.cross_site")})
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeJSON(w, http.StatusUnsupportedMediaType, reply{Reply: c.refusalWords(r).T("inbox.reply.not_json")})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next(w, r)
	}
}

// serveCommand hands a command to the broker and returns its reply:
// one typed in the page's command box ({"text"}), or the one a card's
// control sends ({"step","options","text"}: the control's step, the
// options ticked in a prompt's form, and the text typed beside them).
func (c *Channel) serveCommand(w http.ResponseWriter, r *http.Request) {
	who, ok := c.signedIn(w, r)
	if !ok {
		return
	}
	p := c.words(who, r)
	var body struct {
		Text    string `json:"text"`
		Step    string `json:"step"`
		Options []int  `json:"options"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, refused(p, err))
		return
	}
	text := strings.TrimSpace(body.Text)
	if body.Step != "" {
		_, cmd, ok, err := tap{Step: body.Step, Options: body.Options, Text: text}.command()
		switch {
		case err != nil:
			writeJSON(w, http.StatusBadRequest, refused(p, err))
			return
		case !ok:
			writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.nothing_chosen")})
			return
		}
		text = cmd
	}
	switch {
	case text == "":
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.cmd.empty", "/answer k7m2qx 2")})
		return
	case len(text) > maxCommandLen || !utf8.ValidString(text):
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.cmd_invalid")})
		return
	}
	rep := c.in.HandleInbound(r.Context(), broker.Inbound{
		Channel: Name, User: who.User, Name: who.Name, Text: text, Private: true,
	})
	if rep.Question != nil {
		// The page that acted sees the new state at once, even when the
		// broker's Update for it comes later or went to another instance.
		c.publish(rep.Question)
	}
	msg := rep.Text
	if rep.Ignored || msg == "" {
		msg = p.T("inbox.reply.not_command")
	}
	writeJSON(w, http.StatusOK, reply{OK: rep.OK, Reply: msg})
}

// serveLogin checks the token and sets the session cookie.
func (c *Channel) serveLogin(w http.ResponseWriter, r *http.Request) {
	// Until the token names someone, nobody is signed in: the reply is
	// in the inbox's language, else the browser's.
	p := c.words(identity{}, r)
	var body struct {
		Token string `json:"token"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, refused(p, err))
		return
	}
	if c.auth.open() {
		writeJSON(w, http.StatusOK, reply{OK: true, Reply: p.T("inbox.reply.no_token")})
		return
	}
	now := c.now()
	addr := clientAddr(r)
	if c.auth.guard.blocked(addr, now) {
		writeJSON(w, http.StatusTooManyRequests, reply{Reply: p.T("inbox.reply.too_many"), Login: true})
		return
	}
	cred := c.auth.match(body.Token)
	if cred == nil {
		c.auth.guard.fail(addr, now)
		c.refusals.Warn("wrong token", "wrong web token", "remote", r.RemoteAddr)
		writeJSON(w, http.StatusUnauthorized, reply{Reply: p.T("inbox.reply.wrong_token"), Login: true})
		return
	}
	// The person the token names reads the rest in their language.
	p = c.words(cred.who, r)
	id, err := c.auth.signIn(r.Context(), now, cred.kind, cred.who)
	if err != nil {
		c.log.Error("sign in", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: p.T("inbox.reply.store_signin"), Login: true})
		return
	}
	http.SetCookie(w, c.auth.sessionCookie(r, id, int(cookieMaxAge.Seconds())))
	writeJSON(w, http.StatusOK, reply{OK: true, Reply: p.T("inbox.reply.signed_in", cred.who.Name)})
}

// serveLogout ends the session on every instance and clears the cookie.
// Its reply is in the language of whoever was signed in.
func (c *Channel) serveLogout(w http.ResponseWriter, r *http.Request) {
	who, _, _ := c.auth.who(r, c.now())
	p := c.words(who, r)
	if err := c.auth.signOut(r); err != nil {
		c.log.Error("sign out", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: p.T("inbox.reply.store_signout")})
		return
	}
	http.SetCookie(w, c.auth.sessionCookie(r, "", -1))
	writeJSON(w, http.StatusOK, reply{OK: true, Reply: p.T("inbox.reply.signed_out")})
}

// signedIn returns who r acts as, and false when r may not use the
// inbox; then it has written the answer: 401 asking to sign in, or 503
// when the store cannot say.
func (c *Channel) signedIn(w http.ResponseWriter, r *http.Request) (identity, bool) {
	who, ok, err := c.auth.who(r, c.now())
	switch {
	case err != nil:
		c.log.Error("check sign-in", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: c.words(identity{}, r).T("inbox.reply.store_check")})
		return identity{}, false
	case !ok:
		writeJSON(w, http.StatusUnauthorized, reply{Reply: c.words(identity{}, r).T("inbox.reply.sign_in_first"), Login: true})
		return identity{}, false
	}
	return who, true
}

// The body errors of decode that are the bridge's own words; refused
// puts them in the reader's language.
var (
	errBodyTooLarge = errors.New("the request body is too large")
	errBodyUnread   = errors.New("the request body could not be read")
)

// decode reads a JSON body into v with an error written for the reader.
func decode(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errBodyTooLarge
		}
		return errBodyUnread
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the JSON object")
	}
	if err != nil {
		return errors.New(jsonerr.Describe("the request body", data, v, err).Message)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
