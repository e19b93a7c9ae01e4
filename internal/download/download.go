// Package download fetches the files people send with their answers from
// a chat platform's file server, for the channels: bounded in size, under
// the caller's deadline, and with errors that never carry the URL (which
// may hold a token, as Telegram's does).
package download

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Get fetches rawURL with the given header and returns its body, at most
// max+1 bytes: the broker tells a file over max from one of exactly max
// by its length. A status other than 200 is an error naming it.
func Get(ctx context.Context, c *http.Client, rawURL string, header http.Header, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, errors.New("download: malformed file URL")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: the file server answered %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("download: read: %w", err)
	}
	return data, nil
}
