package web

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/askbridge/askbridge/broker"
)

// RuleKeeper lists and revokes the bridge's approval rules
// (broker/rules.go). *broker.Broker satisfies it.
type RuleKeeper interface {
	Rules(ctx context.Context, agent string, revoked bool) ([]broker.Rule, error)
	RevokeRule(ctx context.Context, agent string, id int64, by broker.Responder) (*broker.Rule, error)
}

// RulesPath is the Rules page: every approval rule, each with a Revoke
// button. It is plain HTML made on the server, so it works without
// JavaScript; rules.js only keeps the confirmation in the page.
const RulesPath = "/rules"

// maxFormBody bounds a form posted to the Rules page, which carries no
// field the page reads.
const maxFormBody = 1 << 10

// rulesRoutes adds the Rules page to mux, when the inbox keeps rules.
//
//	GET  /rules                  the rules in force and the revoked ones;
//	                             ?revoke=<id> opens the confirmation of one,
//	                             ?revoked=<id> says that one was revoked
//	POST /rules/{id}/revoke      a form: revokes rule id as the signed-in
//	                             user, then 303 to /rules?revoked=<id>
func (c *Channel) rulesRoutes(mux *http.ServeMux) {
	if c.rules == nil {
		return
	}
	mux.HandleFunc("GET "+RulesPath, c.serveRules)
	mux.HandleFunc("POST "+RulesPath+"/{id}/revoke", c.formPosted(c.serveRevoke))
}

// formPosted guards a form the Rules page posts: same origin only (the
// inbox's cross-origin protection, as for its JSON posts), a form body
// only, bounded.
func (c *Channel) formPosted(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := crossOrigin.Check(r); err != nil {
			c.log.Warn("cross-site post refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"))
			c.showRules(w, http.StatusForbidden, rulesPage{Notice: bad("Refused: this request came from another site (only the inbox's own pages may post here). Nothing was revoked.")})
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/x-www-form-urlencoded" {
			c.showRules(w, http.StatusUnsupportedMediaType, rulesPage{Notice: bad("Refused: post the Rules page's form (Content-Type: application/x-www-form-urlencoded). Nothing was revoked.")})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
		if err := r.ParseForm(); err != nil {
			c.showRules(w, http.StatusRequestEntityTooLarge, rulesPage{Notice: bad("Refused: the form is too large or unreadable. Nothing was revoked.")})
			return
		}
		next(w, r)
	}
}

// pageUser returns who r acts as, and false when r may not see the
// Rules page; then it has written the answer: 401 asking to sign in, or
// 503 when the store cannot say. done says what did not happen.
func (c *Channel) pageUser(w http.ResponseWriter, r *http.Request, done string) (identity, bool) {
	who, ok, err := c.auth.who(r, c.now())
	switch {
	case err != nil:
		c.log.Error("check sign-in", "err", err)
		c.showRules(w, http.StatusServiceUnavailable, rulesPage{Notice: bad("Cannot check your sign-in right now: the bridge's store is not answering. " + done + " Try again shortly.")})
		return identity{}, false
	case !ok:
		c.showRules(w, http.StatusUnauthorized, rulesPage{SignIn: true, Notice: bad("Sign in to the inbox first, then open Rules again. " + done)})
		return identity{}, false
	}
	return who, true
}

// serveRules shows the rules; ?revoke=<id> opens the confirmation of
// that rule, ?revoked=<id> says it was revoked.
func (c *Channel) serveRules(w http.ResponseWriter, r *http.Request) {
	who, ok := c.pageUser(w, r, "")
	if !ok {
		return
	}
	rules, ok := c.readRules(w, r.Context(), who, "")
	if !ok {
		return
	}
	status, page := http.StatusOK, c.rulesPage(who, rules, 0)
	q := r.URL.Query()
	if v := q.Get("revoke"); v != "" {
		rule, status2, n := c.revocable(rules, v, "nothing to revoke")
		if rule != nil {
			page = c.rulesPage(who, rules, rule.ID)
		} else {
			status, page.Notice = status2, n
		}
	} else if v := q.Get("revoked"); v != "" {
		// Said only when it is so: the rule is revoked.
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			if rule := ruleByID(rules, id); rule != nil && rule.Revoked != nil {
				page.Notice = &pageNotice{Text: "Rule " + v + " is revoked, by " + whoOn(rule.RevokedBy) + " at " + c.when(*rule.Revoked) + ": the calls it allowed are asked again."}
			}
		}
	}
	c.showRules(w, status, page)
}

// serveRevoke revokes a rule through the broker, as DELETE
// /v1/rules/{id} does, in the name of the signed-in user; then it sends
// the browser to the list (303), which says so. An unknown or revoked
// rule changes nothing and says why.
func (c *Channel) serveRevoke(w http.ResponseWriter, r *http.Request) {
	const nothing = "Nothing was revoked."
	who, ok := c.pageUser(w, r, nothing)
	if !ok {
		return
	}
	rules, ok := c.readRules(w, r.Context(), who, nothing)
	if !ok {
		return
	}
	rule, status, n := c.revocable(rules, r.PathValue("id"), "nothing was revoked")
	if rule == nil {
		c.showRules(w, status, c.withNotice(c.rulesPage(who, rules, 0), n))
		return
	}
	by := broker.Inbound{Channel: Name, User: who.User, Name: who.Name, Person: who.Person}.Responder()
	got, err := c.rules.RevokeRule(r.Context(), "", rule.ID, *by)
	switch {
	case errors.Is(err, broker.ErrNotFound):
		c.showRules(w, http.StatusNotFound, c.withNotice(c.rulesPage(who, rules, 0), bad("There is no rule "+strconv.FormatInt(rule.ID, 10)+": "+nothing)))
		return
	case err != nil:
		c.log.Error("revoke rule", "rule", rule.ID, "err", err)
		c.showRules(w, http.StatusServiceUnavailable, c.withNotice(c.rulesPage(who, rules, 0), bad("Could not revoke rule "+strconv.FormatInt(rule.ID, 10)+": the bridge's store is not answering. Reload the page to see whether it is revoked, and try again.")))
		return
	case got.RevokedBy == nil || got.RevokedBy.Channel != by.Channel || got.RevokedBy.User != by.User:
		// Someone else revoked it between the read and the revocation,
		// which keeps the first.
		if fresh, err := c.rules.Rules(r.Context(), "", true); err == nil {
			rules = fresh
		}
		c.showRules(w, http.StatusConflict, c.withNotice(c.rulesPage(who, rules, 0), alreadyRevoked(c, got)))
		return
	}
	c.log.Info("rule revoked in the inbox", "rule", got.ID, "agent", got.Agent, "user", who.User)
	http.Redirect(w, r, RulesPath+"?revoked="+strconv.FormatInt(got.ID, 10)+"#notice", http.StatusSeeOther)
}

// readRules reads every rule, revoked ones too; on failure it has
// written 503.
func (c *Channel) readRules(w http.ResponseWriter, ctx context.Context, who identity, done string) ([]broker.Rule, bool) {
	rules, err := c.rules.Rules(ctx, "", true)
	if err != nil {
		c.log.Error("read rules", "err", err)
		c.showRules(w, http.StatusServiceUnavailable, rulesPage{User: who.Name, Notice: bad("The rules cannot be read right now: the bridge's store is not answering. " + done + " Try again shortly.")})
		return nil, false
	}
	return rules, true
}

// revocable returns the rule in force that v names, or nil with the
// status and the notice that say why there is none: v is no rule id
// (404), or the rule was revoked before (409). what says what comes of
// it ("nothing was revoked").
func (c *Channel) revocable(rules []broker.Rule, v, what string) (*broker.Rule, int, *pageNotice) {
	id, err := strconv.ParseInt(v, 10, 64)
	var rule *broker.Rule
	if err == nil {
		rule = ruleByID(rules, id)
	}
	switch {
	case rule == nil:
		return nil, http.StatusNotFound, bad("There is no rule " + strconv.Quote(cutRunes(v, 40)) + ": " + what + ".")
	case rule.Revoked != nil:
		return nil, http.StatusConflict, alreadyRevoked(c, rule)
	}
	return rule, http.StatusOK, nil
}

// alreadyRevoked says that rule was revoked before, by whom and when.
func alreadyRevoked(c *Channel, rule *broker.Rule) *pageNotice {
	n := "Rule " + strconv.FormatInt(rule.ID, 10) + " was already revoked"
	if rule.RevokedBy != nil {
		n += " by " + whoOn(rule.RevokedBy)
	}
	if rule.Revoked != nil {
		n += " at " + c.when(*rule.Revoked)
	}
	return bad(n + ": nothing changed.")
}

// ruleByID returns the rule with id, or nil.
func ruleByID(rules []broker.Rule, id int64) *broker.Rule {
	for i := range rules {
		if rules[i].ID == id {
			return &rules[i]
		}
	}
	return nil
}
