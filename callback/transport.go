package callback

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"
)

// newHTTPClient returns the client of deliveries. With a loopback-only
// policy its dialer refuses any address that is not loopback, so a host
// name cannot be pointed elsewhere after the check.
func newHTTPClient(p *Policy) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if p.LoopbackOnly() {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("callback: %s is not a loopback address and callbacks.allow is empty", host)
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if p.LoopbackOnly() {
		tr.Proxy = nil
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
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
