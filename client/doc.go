// Package client is the Go SDK for agents that ask people questions
// through an askbridge server. It speaks the HTTP API v1 and imports
// nothing of the server, so agents depend on this package alone.
//
//	c := client.New("http://127.0.0.1:8377", os.Getenv("ASKBRIDGE_KEY"))
//	res, err := c.Ask(ctx, client.Question{
//		Question: "Which database should the service use?",
//		Options:  []client.Option{{Label: "Postgres"}, {Label: "SQLite"}},
//	})
//
// Ask blocks with long-polls until the question resolves, and re-attaches
// transparently after a lost connection by asking again with the same
// session and tool-call ids. Every outcome but an answer to every prompt
// (by people, or by the defaults at the deadline) is an error that
// errors.Is one of ErrDeclined, ErrTimeout, ErrCancelled, ErrUnsupported
// (typed as *DeclinedError, *TimeoutError, *EndedError), returned together
// with the Result. Confirm asks yes/no; AskForm asks up to four typed
// prompts as one dialog.
//
// In pending mode AskAsync returns the question's id at once; the result
// comes back through Wait, the resumable Events stream, or a signed
// webhook callback (see package callback for Verify).
package client
