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
// session and tool-call ids.
package client
