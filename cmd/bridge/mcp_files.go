package main

import (
	"context"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

var _ mcp.FileFetcher = (*brokerAsker)(nil)

// Attachment returns a file of one of the agent's answers, so that the
// MCP tools hand pictures to the model as images.
func (a *brokerAsker) Attachment(ctx context.Context, id string, n int) (*client.File, error) {
	f, err := a.b.Attachment(ctx, a.agent, id, n)
	if err != nil {
		return nil, apiError(err)
	}
	return &client.File{Name: f.Name, Type: f.Type, Data: f.Data}, nil
}
