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

// crossOrigin refuses requests that another site's page made a browser send.
var crossOrigin = http.NewCrossOriginProtection()

// posted guards a POST endpoint: same origin only, JSON only, bounded body.
func (c *Channel) posted(next http.HandlerFunc) http.HandlerFunc { return c.postedUpTo(maxBody, next) }

// postedUpTo is posted with a body of at most limit bytes.
func (c *Channel) postedUpTo(limit int64, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := crossOrigin.Check(r); err != nil {
			c.log.Warn("cross-site post refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"))
			writeJSON(w, http.StatusForbidden, reply{Reply: "Refused: this request came from another site (only the inbox page itself may post here)"})
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeJSON(w, http.StatusUnsupportedMediaType, reply{Reply: "Refused: send JSON with Content-Type: application/json"})
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
	var body struct {
		Text    string `json:"text"`
		Step    string `json:"step"`
		Options []int  `json:"options"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, reply{Reply: "Refused: " + err.Error()})
		return
	}
	text := strings.TrimSpace(body.Text)
	if body.Step != "" {
		_, cmd, ok, err := tap{Step: body.Step, Options: body.Options, Text: text}.command()
		switch {
		case err != nil:
			writeJSON(w, http.StatusBadRequest, reply{Reply: "Refused: " + err.Error()})
			return
		case !ok:
			writeJSON(w, http.StatusBadRequest, reply{Reply: "Refused: " + errNothingChosen.Error()})
			return
		}
		text = cmd
	}
	switch {
	case text == "":
		writeJSON(w, http.StatusBadRequest, reply{Reply: "Type a command, such as /answer k7m2qx 2"})
		return
	case len(text) > maxCommandLen || !utf8.ValidString(text):
		writeJSON(w, http.StatusBadRequest, reply{Reply: "That command is too long or not valid text"})
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
		msg = "Not a command. Use /answer <id> <choice>, /decline <id> [reason] or /pending"
	}
	writeJSON(w, http.StatusOK, reply{OK: rep.OK, Reply: msg})
}

// serveLogin checks the token and sets the session cookie.
func (c *Channel) serveLogin(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Token string `json:"token"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, reply{Reply: "Refused: " + err.Error()})
		return
	}
	if c.auth.open() {
		writeJSON(w, http.StatusOK, reply{OK: true, Reply: "This inbox needs no token"})
		return
	}
	now := c.now()
	addr := clientAddr(r)
	if c.auth.guard.blocked(addr, now) {
		writeJSON(w, http.StatusTooManyRequests, reply{Reply: "Too many wrong tokens from your address: wait a minute and try again", Login: true})
		return
	}
	cred := c.auth.match(body.Token)
	if cred == nil {
		c.auth.guard.fail(addr, now)
		c.refusals.Warn("wrong token", "wrong web token", "remote", r.RemoteAddr)
		writeJSON(w, http.StatusUnauthorized, reply{Reply: "Wrong token: ask whoever runs the bridge for the web token", Login: true})
		return
	}
	id, err := c.auth.signIn(r.Context(), now, cred.kind, cred.who)
	if err != nil {
		c.log.Error("sign in", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: "Cannot sign you in right now: the bridge's store is not answering; try again shortly", Login: true})
		return
	}
	http.SetCookie(w, c.auth.sessionCookie(r, id, int(cookieMaxAge.Seconds())))
	writeJSON(w, http.StatusOK, reply{OK: true, Reply: "Signed in as " + cred.who.Name})
}

// serveLogout ends the session on every instance and clears the cookie.
func (c *Channel) serveLogout(w http.ResponseWriter, r *http.Request) {
	if err := c.auth.signOut(r); err != nil {
		c.log.Error("sign out", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: "Cannot sign you out right now: the bridge's store is not answering; try again shortly"})
		return
	}
	http.SetCookie(w, c.auth.sessionCookie(r, "", -1))
	writeJSON(w, http.StatusOK, reply{OK: true, Reply: "Signed out"})
}

// signedIn returns who r acts as, and false when r may not use the
// inbox; then it has written the answer: 401 asking to sign in, or 503
// when the store cannot say.
func (c *Channel) signedIn(w http.ResponseWriter, r *http.Request) (identity, bool) {
	who, ok, err := c.auth.who(r, c.now())
	switch {
	case err != nil:
		c.log.Error("check sign-in", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, reply{Reply: "Cannot check your sign-in right now: the bridge's store is not answering; retrying"})
		return identity{}, false
	case !ok:
		writeJSON(w, http.StatusUnauthorized, reply{Reply: "Sign in with the web token first", Login: true})
		return identity{}, false
	}
	return who, true
}

// decode reads a JSON body into v with an error written for the reader.
func decode(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errors.New("the request body is too large")
		}
		return errors.New("the request body could not be read")
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
