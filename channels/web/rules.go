package web

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
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
		refuse := func(status int, id string) {
			who, _, _ := c.auth.who(r, c.now())
			tr := c.rulesPrinter(who, r)
			c.showRules(w, status, rulesPage{tr: tr, Notice: bad(tr.T(id))})
		}
		if err := crossOrigin.Check(r); err != nil {
			c.log.Warn("cross-site post refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"))
			refuse(http.StatusForbidden, "rules.cross_site")
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/x-www-form-urlencoded" {
			refuse(http.StatusUnsupportedMediaType, "rules.not_form")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
		if err := r.ParseForm(); err != nil {
			refuse(http.StatusRequestEntityTooLarge, "rules.too_large")
			return
		}
		next(w, r)
	}
}

// rulesPrinter is the language of the Rules page for who, as of the
// inbox's own words (lang.go): the person's, else the inbox's, else the
// browser's, else English.
func (c *Channel) rulesPrinter(who identity, r *http.Request) *i18n.Printer {
	return i18n.For(c.pageLocale(readerOf(who, r)))
}

// pageUser returns who r acts as, in the language of the page, and
// false when r may not see the Rules page; then it has written the
// answer: 401 asking to sign in, or 503 when the store cannot say.
// revoking says that r asked to revoke a rule, which did not happen.
func (c *Channel) pageUser(w http.ResponseWriter, r *http.Request, revoking bool) (identity, *i18n.Printer, bool) {
	who, ok, err := c.auth.who(r, c.now())
	// An expired session still names its person, whose language the
	// page keeps, as the inbox's words do (serveStrings).
	tr := c.rulesPrinter(who, r)
	switch {
	case err != nil:
		c.log.Error("check sign-in", "err", err)
		c.showRules(w, http.StatusServiceUnavailable, rulesPage{tr: tr, Notice: bad(tr.T(orNothing(revoking, "rules.check_revoke", "rules.check_failed")))})
		return identity{}, nil, false
	case !ok:
		c.showRules(w, http.StatusUnauthorized, rulesPage{tr: tr, SignIn: true, Notice: bad(tr.T(orNothing(revoking, "rules.sign_in_revoke", "rules.sign_in_first")))})
		return identity{}, nil, false
	}
	return who, tr, true
}

// orNothing is the message id with "Nothing was revoked." (yes) when cond holds, else the one without (no).
func orNothing(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// serveRules shows the rules; ?revoke=<id> opens the confirmation of
// that rule, ?revoked=<id> says it was revoked.
func (c *Channel) serveRules(w http.ResponseWriter, r *http.Request) {
	who, tr, ok := c.pageUser(w, r, false)
	if !ok {
		return
	}
	rules, ok := c.readRules(w, r.Context(), tr, who, false)
	if !ok {
		return
	}
	status, page := http.StatusOK, c.rulesPage(tr, who, rules, 0)
	q := r.URL.Query()
	if v := q.Get("revoke"); v != "" {
		rule, status2, n := c.revocable(tr, rules, v, "rules.no_rule_confirm")
		if rule != nil {
			page = c.rulesPage(tr, who, rules, rule.ID)
		} else {
			status, page.Notice = status2, n
		}
	} else if v := q.Get("revoked"); v != "" {
		// Said only when it is so: the rule is revoked.
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			if rule := ruleByID(rules, id); rule != nil && rule.Revoked != nil {
				page.Notice = &pageNotice{Text: tr.T("rules.revoked", rule.ID, whoOn(tr, rule.RevokedBy), c.when(tr, *rule.Revoked))}
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
	who, tr, ok := c.pageUser(w, r, true)
	if !ok {
		return
	}
	rules, ok := c.readRules(w, r.Context(), tr, who, true)
	if !ok {
		return
	}
	rule, status, n := c.revocable(tr, rules, r.PathValue("id"), "rules.no_rule")
	if rule == nil {
		c.showRules(w, status, c.withNotice(c.rulesPage(tr, who, rules, 0), n))
		return
	}
	by := broker.Inbound{Channel: Name, User: who.User, Name: who.Name, Person: who.Person}.Responder()
	got, err := c.rules.RevokeRule(r.Context(), "", rule.ID, *by)
	switch {
	case errors.Is(err, broker.ErrNotFound):
		c.showRules(w, http.StatusNotFound, c.withNotice(c.rulesPage(tr, who, rules, 0), bad(tr.T("rules.no_rule", strconv.FormatInt(rule.ID, 10)))))
		return
	case err != nil:
		c.log.Error("revoke rule", "rule", rule.ID, "err", err)
		c.showRules(w, http.StatusServiceUnavailable, c.withNotice(c.rulesPage(tr, who, rules, 0), bad(tr.T("rules.revoke_failed", rule.ID))))
		return
	case got.RevokedBy == nil || got.RevokedBy.Channel != by.Channel || got.RevokedBy.User != by.User:
		// Someone else revoked it between the read and the revocation,
		// which keeps the first.
		if fresh, err := c.rules.Rules(r.Context(), "", true); err == nil {
			rules = fresh
		}
		c.showRules(w, http.StatusConflict, c.withNotice(c.rulesPage(tr, who, rules, 0), alreadyRevoked(c, tr, got)))
		return
	}
	c.log.Info("rule revoked in the inbox", "rule", got.ID, "agent", got.Agent, "user", who.User)
	http.Redirect(w, r, RulesPath+"?revoked="+strconv.FormatInt(got.ID, 10)+"#notice", http.StatusSeeOther)
}

// readRules reads every rule, revoked ones too; on failure it has
// written 503. revoking is as for pageUser.
func (c *Channel) readRules(w http.ResponseWriter, ctx context.Context, tr *i18n.Printer, who identity, revoking bool) ([]broker.Rule, bool) {
	rules, err := c.rules.Rules(ctx, "", true)
	if err != nil {
		c.log.Error("read rules", "err", err)
		c.showRules(w, http.StatusServiceUnavailable, rulesPage{tr: tr, User: who.Name, Notice: bad(tr.T(orNothing(revoking, "rules.read_revoke", "rules.read_failed")))})
		return nil, false
	}
	return rules, true
}

// revocable returns the rule in force that v names, or nil with the
// status and the notice that say why there is none: v is no rule id
// (404), or the rule was revoked before (409). none is the message that
// there is no such rule ("rules.no_rule": nothing was revoked).
func (c *Channel) revocable(tr *i18n.Printer, rules []broker.Rule, v, none string) (*broker.Rule, int, *pageNotice) {
	id, err := strconv.ParseInt(v, 10, 64)
	var rule *broker.Rule
	if err == nil {
		rule = ruleByID(rules, id)
	}
	switch {
	case rule == nil:
		return nil, http.StatusNotFound, bad(tr.T(none, strconv.Quote(cutRunes(v, 40))))
	case rule.Revoked != nil:
		return nil, http.StatusConflict, alreadyRevoked(c, tr, rule)
	}
	return rule, http.StatusOK, nil
}

// alreadyRevoked says that rule was revoked before, by whom and when.
func alreadyRevoked(c *Channel, tr *i18n.Printer, rule *broker.Rule) *pageNotice {
	if rule.Revoked == nil {
		return bad(tr.T("rules.already_any", rule.ID))
	}
	return bad(tr.T("rules.already", rule.ID, whoOn(tr, rule.RevokedBy), c.when(tr, *rule.Revoked)))
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
