package client

import "context"

// Ask asks q and blocks until it ends, with long-polls that re-attach
// after lost connections and server restarts (the question keeps its
// session and tool-call ids, so asking again finds the same question).
//
// It returns the Result whenever the question ended, with no error when
// every prompt has an answer: people answered, or the deadline passed and
// the prompts nobody answered took their defaults (Status StatusTimedOut,
// Fallback FallbackDefault, those answers marked Defaulted). Every other
// outcome is an error: *DeclinedError (errors.Is ErrDeclined),
// *TimeoutError (ErrTimeout: some prompt has no answer; the Result holds
// the answers there are), *EndedError (ErrCancelled or ErrUnsupported). A
// nil Result means the question's outcome is unknown (ctx ended, bad
// input, the server refused); the error says why.
func (c *Client) Ask(ctx context.Context, q Question) (*Result, error) {
	res, err := c.AskRaw(ctx, q)
	if err != nil {
		return nil, err
	}
	return res, res.Err()
}

// AskAsync asks q in pending mode and returns its id at once. Collect the
// result later with Wait, Get, Events, or the callback_url of q.
func (c *Client) AskAsync(ctx context.Context, q Question) (string, error) {
	if q.ToolCallID == "" {
		q.ToolCallID = NewToolCallID()
	}
	q.Wait = "0s"
	r := c.newRetrier()
	ctx = r.trace(ctx)
	for {
		res, err := c.Submit(ctx, q)
		if err == nil {
			return res.ID, nil
		}
		if err := r.pause(ctx, err); err != nil {
			return "", err
		}
	}
}

// Confirm asks a yes/no question and reports whether the person chose
// Yes. Declines, timeouts without a default and cancellations are errors,
// as for Ask.
func (c *Client) Confirm(ctx context.Context, text string) (bool, error) {
	no := false
	res, err := c.Ask(ctx, Question{Question: text, Options: []Option{{Label: "Yes"}, {Label: "No"}}, Other: &no})
	if res == nil || (err != nil && res.Status != StatusTimedOut) {
		return false, err
	}
	a := res.Answers[text]
	return len(a.Selected) == 1 && a.Selected[0] == "Yes", err
}
