package bench

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// cutProxy stands between a bot and its fake platform. While cut, every
// request's connection is closed without an answer, as when the network
// to the platform is down; while flooding, every request is answered
// with Telegram's 429 (retry_after 2).
type cutProxy struct {
	srv   *httptest.Server
	cut   atomic.Bool
	flood atomic.Bool
}

// flood429 is the Bot API's flood-control answer.
const flood429 = `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 2","parameters":{"retry_after":2}}`

func newCutProxy(target string) (*cutProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	p := &cutProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a bot's long poll cancelled mid-way is no news
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.cut.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					_ = c.Close()
					return
				}
			}
			http.Error(w, "cut", http.StatusBadGateway)
			return
		}
		if p.flood.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(flood429))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	return p, nil
}

// URL is the proxy's base URL.
func (p *cutProxy) URL() string { return p.srv.URL }

// Set cuts (true) or restores (false) the link; restoring also drops the
// connections held open during the cut.
func (p *cutProxy) Set(cut bool) {
	p.cut.Store(cut)
	p.srv.CloseClientConnections()
}

// Flood turns the 429 answers on or off.
func (p *cutProxy) Flood(on bool) { p.flood.Store(on) }

func (p *cutProxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
}
