// Package callback delivers the results of questions asked in pending mode
// to the agents' webhook URLs: signed, retried with backoff, and durable.
//
// Data flows one way. When a question with a callback_url resolves, the
// store's Resolve enqueues a broker.Delivery in the same atomic step as the
// status change, so a delivery is never lost between the two. A Deliverer
// on every bridge instance claims due deliveries from the store
// (ClaimDeliveries holds each claimed delivery for a while, so two
// instances never send the same attempt at once), POSTs the question's
// Result JSON with an HMAC-SHA256 signature under the agent's callback
// secret, and records the outcome with UpdateDelivery under its claim
// (retrying the write while the claim lasts): delivered on a 2xx,
// retried later with exponential backoff and jitter on network errors,
// 408, 429 and 5xx (honouring Retry-After), failed on any other 4xx or
// when the retry window ends. Deliveries are at-least-once: a receiver
// deduplicates with the X-Askbridge-Delivery header.
//
// A Policy (the callbacks.allow list) says which URLs may be called at
// all, checked when a question is asked and again before every attempt,
// and which internal address ranges may be connected to, checked by the
// dialer on every resolved address (addr.go, transport.go). What an
// attempt met is recorded as a class (classify.go), never the
// receiver's words. Receivers check signatures with Verify.
package callback
