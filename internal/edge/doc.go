// Package edge guards the bridge's HTTP server against requests that
// reach it from where they should not: web pages in a person's browser,
// and the internet through a reverse proxy in front of a keyless bridge.
//
// A bridge on 127.0.0.1 with no keys trusts whoever can connect, which is
// meant to be programs of the person at the keyboard. Two other callers
// can connect too. A web page open in that person's browser can send
// requests to 127.0.0.1 (a no-cors POST needs no permission), or rename
// the bridge through DNS rebinding: a hostile name that resolves to
// 127.0.0.1 makes the bridge same-origin with the page, which may then
// read the answers. And a reverse proxy in front of the bridge hands every
// request from the internet to a loopback socket.
//
// Guard is one http.Handler that wraps the whole server (API, web inbox,
// MCP endpoint and platform webhooks) and checks, in this order:
//
//  1. Host. The Host header must name the bridge: localhost, 127.0.0.0/8
//     or ::1 (any port), the host of the listen address when that is a
//     specific address, an IP literal equal to the address the connection
//     arrived on, the host of server.public_url, or a name in
//     server.allowed_hosts. Anything else is a 421 naming the settings to
//     change. A DNS rebinding request carries the hostile name and stops
//     here, on every path, webhooks included.
//  2. Proxy. A request carrying Forwarded, X-Forwarded-For, -Host or
//     -Proto, or X-Real-IP, came through a proxy. When the part it is for
//     needs no credential (the API without agent keys, /v1/commands
//     without responder keys, the web inbox without a token), it is a 403
//     saying that keys are required behind a proxy; the first one is
//     logged as a warning. Platform webhooks, which check their own
//     signatures or secrets, are exempt.
//  3. Cross-site. A state-changing request (not GET, HEAD or OPTIONS)
//     whose Sec-Fetch-Site is cross-site or same-site, or, without that
//     header, whose Origin is not the bridge's own origin (its Host, or
//     server.public_url), is a 403. Agents, the CLI and the SDK send
//     neither header, so they are unaffected.
//  4. Content type. Every other POST, PUT or PATCH (the JSON endpoints
//     under /v1/, /inbox/ and /mcp) must say Content-Type:
//     application/json, else 415; a POST with no body and no Content-Type
//     (a cancel without a reason) passes. A browser may send text/plain
//     and form bodies to any address, but application/json only after a
//     CORS preflight, which the bridge never grants. Platform webhooks
//     (Slack posts forms) are exempt.
//
// Refusals are the API's JSON error, {"error":{"code","message"}}, and
// change nothing. The checks read only the request's headers and path,
// without allocating for a request that passes (BenchmarkGuard).
//
// Settings (server.go) is the server section of the configuration: the
// Host names beside the listen address, and the limits that keep slow or
// idle clients from exhausting the server (a connection cap that fits the
// open-file limit, read, write and idle timeouts, a header size bound),
// applied by Listen and HTTPServer.
package edge
