package client

import (
	"context"
	"fmt"
	"net/http"
)

// Healthy asks the bridge's GET /healthz, which needs no key, and returns
// nil when the bridge answers that it is up. It is what a container's
// health check or a load balancer's probe asks: the process serves HTTP;
// whether the store is reachable is GET /readyz's question.
func (c *Client) Healthy(ctx context.Context) error {
	var out struct {
		Status string `json:"status"`
	}
	code, err := c.do(ctx, http.MethodGet, "/healthz", nil, &out)
	if err != nil {
		return err
	}
	if out.Status != "ok" {
		return fmt.Errorf("askbridge: %s/healthz answered HTTP %d with status %q, not \"ok\"", c.base, code, out.Status)
	}
	return nil
}
