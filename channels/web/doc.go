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
// The view is the question's card (broker.BuildCard, for the inbox's time
// zone and clock) mapped in one pass (render.go): every word the page
// shows of a question comes from the card, and every control carries the
// step it takes (broker.EncodeStep). A click posts that step, with the
// options ticked in a prompt's form and the text typed beside it, to POST
// /inbox/command (tap.go), which reads the step (broker.DecodeStep), makes
// its command (Step.Command) and hands it to the broker as a
// broker.Inbound, and returns the broker's reply sentence for the page to
// show. The page's command box posts typed commands there too. Views also
// carry, for one release, the command fields pages loaded before steps
// read (legacy.go).
//
// Each reader gets the cards and the page's own words in their language
// (lang.go): the signed-in person's, else (for a card) the route's, else
// the inbox's, else the browser's, else English. The hub renders one
// event per zone and language among the connected pages; GET
// /inbox/strings serves the page its words (the catalogs' inbox.* ids),
// which assets/strings.js puts on the page.
//
// The Rules page (GET /rules, rules.go) lists the bridge's approval rules
// and revokes one with a form post, as DELETE /v1/rules/{id} does, in the
// name of whoever is signed in; it is HTML made on the server from a
// template (pages/rules.html), so it works without JavaScript.
//
// The inbox installs as a web app and notifies (push.go, push_send.go,
// assets/sw.js, assets/push.js): a manifest, a service worker at /sw.js
// that keeps the page and its last state for offline use and shows pushes
// as notifications, and per-person push subscriptions kept in the store
// (broker.PushStore, Options.Push). Post hands each new question to a
// bounded background queue, which pushes it, signed with the store's
// VAPID key pair, to the devices of the people its responders name.
//
// The page itself is plain HTML, CSS and JavaScript embedded in the binary.
// Everything an agent wrote is put into the page with textContent, never as
// markup, and a strict Content-Security-Policy forbids inline scripts.
//
// Who may answer: on a loopback listener with no way to sign in configured
// the page is open and answers are recorded as "local". Otherwise the page
// asks to sign in, and says who is signed in. A person signs in with their
// own token (broker.Person.WebTokenEnv) or through single sign-on
// (OpenID Connect, oidc*.go: the provider's verified email selects the
// person), and acts as the account web:<person id>; the shared token
// signs in as the person token_person names, or as the user "web", who is
// no person. ValidatePeople checks all of it for serve and check-config.
// Each sign-in makes a new session: an HttpOnly, SameSite=Strict cookie
// holding "<person id>.<how>.<random>", never a token, and in the store
// (broker.Sessions) a digest of it keyed with the secret of the way it was
// made, valid for 30 days from sign-in, so every bridge instance accepts
// it, signing out ends it everywhere, and a new token ends that person's
// sessions only. Wrong tokens are counted per client address (20 a
// minute), so one guesser cannot lock others out. Posts from other sites
// are refused.
package web
