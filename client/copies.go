package client

import (
	"context"
	"net/http"
	"net/url"
)

// Copy is a question's copy on one target and what became of it: State
// is "queued", "posted", "retrying", "failed" or "not posted";
// LastError says why a copy is not posted yet.
type Copy struct {
	Target    Target `json:"target"`
	State     string `json:"state"`
	LastError string `json:"last_error,omitempty"`
}

// Copies returns where question id was posted and how each copy stands.
func (c *Client) Copies(ctx context.Context, id string) ([]Copy, error) {
	var out struct {
		Copies []Copy `json:"copies"`
	}
	if _, err := c.do(ctx, http.MethodGet, "/v1/questions/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return out.Copies, nil
}
