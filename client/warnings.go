package client

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"sync/atomic"
)

// The headers of an ask's warnings (the bridge's api package): a waiting
// ask whose question was warned is sent them at once, in an informational
// 103 response, before the server waits.
const (
	headerWarning  = "X-Askbridge-Warning"
	headerQuestion = "X-Askbridge-Question"
)

// earlyWarnings returns ctx with a client trace that tells OnWarnings of
// the first informational response carrying warnings, and told, which
// reports whether it did. Without OnWarnings it returns ctx as it is.
func (c *Client) earlyWarnings(ctx context.Context) (context.Context, *atomic.Bool) {
	told := new(atomic.Bool)
	if c.OnWarnings == nil {
		return ctx, told
	}
	on := c.OnWarnings
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			if code != http.StatusEarlyHints || told.Load() {
				return nil
			}
			ws := warningsOf(h)
			if len(ws) == 0 {
				return nil
			}
			told.Store(true)
			on(Result{ID: h.Get(headerQuestion), Status: StatusPending, Warnings: ws})
			return nil
		},
	}), told
}

// warningsOf reads the warning headers of h; a value that is not
// percent-encoded as the bridge writes it is taken as it is.
func warningsOf(h textproto.MIMEHeader) []string {
	var out []string
	for _, v := range h.Values(headerWarning) {
		if s, err := url.PathUnescape(v); err == nil {
			v = s
		}
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
