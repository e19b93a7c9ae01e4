package callback

import (
	"context"
	"net"
	"net/http"
	"syscall"
	"time"
)

// newHTTPClient returns the client of deliveries. Its dialer checks every
// address it is about to connect to against p (Policy.checkDial) after
// the host name is resolved, so DNS cannot point an allowed name at an
// internal address, not even by answering differently between the URL
// check and the connection. For the same reason it uses no proxy
// (HTTP_PROXY and HTTPS_PROXY are ignored): a proxy would resolve and
// connect on the bridge's behalf, out of the check's sight. It follows no
// redirects: a 3xx is the receiver's answer.
//
// resolver, when not nil, resolves host names instead of the system's
// resolver; dialHook, when not nil, is called after the check passes and
// may refuse the connection too. Both are for tests.
func newHTTPClient(p *Policy, resolver *net.Resolver, dialHook func(network, address string) error) *http.Client {
	d := &net.Dialer{
		Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Resolver: resolver,
		ControlContext: func(_ context.Context, network, address string, _ syscall.RawConn) error {
			if err := p.checkDial(address); err != nil {
				return err
			}
			if dialHook != nil {
				return dialHook(network, address)
			}
			return nil
		},
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = d.DialContext
	tr.DialTLSContext = nil
	tr.MaxIdleConnsPerHost = 16
	return &http.Client{
		Transport: tr,
		// A callback URL is checked against the Policy and a redirect
		// would leave it: a 3xx is an answer, not a hop.
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
