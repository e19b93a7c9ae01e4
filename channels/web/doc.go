// Package web is askbridge's built-in web inbox: a broker.Channel named
// "web" that shows open questions on a page served by the bridge itself,
// and the default place questions go on a fresh machine.
//
// Data flows like this. The broker calls Post when a question is routed to
// "web" and Update (or Remind) when it changes; the channel renders the
// question into a view (the JSON the page reads) and broadcasts it on an
// in-process hub to every page connected to GET /inbox/events (server-sent
// events). A page that connects or reconnects first reads the whole state
// from GET /inbox/state, which lists open and recently resolved questions
// from the store through a Lister, so a reload never shows a stale question.
// A click on a button posts the button's command, exactly the string
// broker.FormatOption (or FormatOptionsOther, FormatOther, FormatSkip,
// FormatDiscuss, FormatDecline) gives, to POST /inbox/command, which hands it to the broker as a broker.Inbound
// and returns the broker's reply sentence for the page to show.
//
// The page itself is plain HTML, CSS and JavaScript embedded in the binary.
// Everything an agent wrote is put into the page with textContent, never as
// markup, and a strict Content-Security-Policy forbids inline scripts.
//
// Who may answer: on a loopback listener with no token configured the page
// is open and answers are recorded as "local". Otherwise a token (read from
// the environment variable the config names) is required: the page asks for
// it once and keeps an HttpOnly, SameSite=Strict session cookie holding a
// random session id, never the token itself. Each sign-in makes a new
// session, kept in the store (broker.Sessions) as a digest keyed with the
// token, valid for 30 days from sign-in, so every bridge instance accepts
// it and signing out ends it everywhere. Wrong tokens are counted per
// client address (20 a minute), so one guesser cannot lock others out.
// Posts from other sites are refused.
package web
