// Package netlimit caps the number of connections a listener holds open.
//
// The standard library's http.Server accepts every connection it is
// offered, and golang.org/x/net/netutil.LimitListener, the usual cap,
// makes the excess wait in Accept: a client over the cap then sits in the
// kernel's backlog until it gives up, which is a queue an attacker fills
// as easily as the server. A Listener here closes a connection over the
// cap the moment it is accepted, so a flood costs the server one
// accept and one close per connection and a legitimate client sees a
// reset at once instead of a hang, and can retry.
//
// A connection counts from its Accept until its first Close, whoever
// calls it (the HTTP server after a response, after a timeout, or a
// handler that hijacked it).
package netlimit
