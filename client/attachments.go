package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// MaxAttachmentSize is the largest file a bridge keeps; Attachment reads
// no more.
const MaxAttachmentSize = 10 << 20

// File is the content of an attachment.
type File struct {
	Name string
	// Type is the media type the bridge sniffed from the bytes when it
	// stored them ("image/png", "text/plain", "application/pdf").
	Type string
	Data []byte
}

// Attachment fetches file n of question id: the n of an Attachment in
// one of its answers (GET /v1/questions/{id}/attachments/{n}). Only the
// agent that asked the question may fetch its files.
func (c *Client) Attachment(ctx context.Context, id string, n int) (*File, error) {
	path := "/v1/questions/" + id + "/attachments/" + strconv.Itoa(n)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("askbridge: %w", err)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("askbridge: GET %s: %w", path, ctx.Err())
		}
		return nil, &ConnError{Server: c.base, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAttachmentSize+1))
	if err != nil {
		return nil, fmt.Errorf("askbridge: read file %d of %s: %w", n, id, err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb struct {
			Error APIError `json:"error"`
		}
		if json.Unmarshal(data, &eb) != nil || eb.Error.Message == "" {
			eb.Error.Message = strings.TrimSpace(string(data))
		}
		eb.Error.StatusCode = resp.StatusCode
		return nil, &eb.Error
	}
	if len(data) > MaxAttachmentSize {
		return nil, fmt.Errorf("askbridge: file %d of %s is larger than %d bytes", n, id, MaxAttachmentSize)
	}
	f := &File{Data: data}
	f.Type, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if _, p, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		f.Name = p["filename"]
	}
	return f, nil
}
