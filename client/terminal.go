package client

import (
	"context"
	"net/http"
	"net/url"
)

// AnswerAtTerminal records the answers a person gave at the agent's own
// screen (a form in the MCP client), keyed by question text: the
// question ends answered by {"channel": "terminal", "user": clientName},
// and every chat copy is edited closed. A closed question is an
// *APIError with status 409.
func (c *Client) AnswerAtTerminal(ctx context.Context, id, clientName string, answers map[string]Answer) (*Result, error) {
	var res Result
	body := map[string]any{"answers": answers, "client": clientName}
	if _, err := c.do(ctx, http.MethodPost, "/v1/questions/"+url.PathEscape(id)+"/answer", body, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
