package client

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// AddressError is a server address that is not an http:// or https://
// URL, such as "127.0.0.1:8377" without its scheme. Every call of a
// client made with it returns it, without trying the network.
type AddressError struct {
	// Server is the address as given to New.
	Server string
	// Hint is the address as it was probably meant, when one can be
	// told: "http://127.0.0.1:8377".
	Hint string
}

func (e *AddressError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("askbridge: the bridge's address %q has no scheme: write it as %s", e.Server, e.Hint)
	}
	return fmt.Sprintf("askbridge: the bridge's address %q is not an http:// or https:// URL (such as %s)", e.Server, DefaultServer)
}

// checkBase returns an *AddressError when base is not a URL a bridge can
// be reached at.
func checkBase(base string) error {
	u, err := url.Parse(base)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	e := &AddressError{Server: base}
	if !strings.Contains(base, "://") && base != "" && !strings.ContainsAny(base, " \t") {
		if _, perr := url.Parse("http://" + base); perr == nil {
			e.Hint = "http://" + base
		}
	}
	return e
}

// notJSON reports whether an answer of type contentType holding data is
// something other than JSON: an HTML page, text, nothing at all.
func notJSON(contentType string, data []byte) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/json" || strings.HasSuffix(mt, "+json") {
		return false
	}
	b := bytes.TrimSpace(data)
	return len(b) == 0 || (b[0] != '{' && b[0] != '[')
}

// notBridge says that resp did not come from a bridge, with what it was.
func (c *Client) notBridge(resp *http.Response) string {
	what := "an answer that is not the bridge's JSON"
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mt == "text/html":
		what = "an HTML page"
	case resp.ContentLength == 0:
		what = "an empty answer"
	case mt != "":
		what = "a " + mt + " answer"
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// A proxy's page while the bridge behind it is down: worth
		// retrying, and not a sign of a wrong address.
		return fmt.Sprintf("the server at %s answered HTTP %d with %s rather than the bridge's answer (a proxy whose bridge is down or restarting?)", c.base, resp.StatusCode, what)
	}
	return fmt.Sprintf("the server at %s is not an askbridge bridge: it answered HTTP %d with %s (check the address)", c.base, resp.StatusCode, what)
}
