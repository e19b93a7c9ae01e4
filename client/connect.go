package client

import (
	"net"
	"net/http"
	"time"
)

// SetConnectTimeout bounds how long a request waits for its connection to
// the bridge (the TCP and TLS handshakes); zero restores Go's defaults. A
// request that times out so fails with a *ConnError. Call it before the
// client is used.
func (c *Client) SetConnectTimeout(d time.Duration) {
	if d <= 0 {
		c.http.Transport = nil
		return
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: d, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = d
	c.http.Transport = t
}

// SetTransport makes the client send its requests through rt instead of
// the network: for example api.Server.Transport, which serves them in the
// same process. Call it before the client is used.
func (c *Client) SetTransport(rt http.RoundTripper) { c.http.Transport = rt }
