package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

//go:embed pages/rules.html
var pages embed.FS

// parseRulesPage reads the Rules page's template. html/template escapes
// every value put into it, so a pattern shows exactly as stored, every
// character of it, and never as markup.
func parseRulesPage() (*template.Template, error) {
	t, err := template.ParseFS(pages, "pages/rules.html")
	if err != nil {
		return nil, fmt.Errorf("web: the Rules page's template: %w", err)
	}
	return t, nil
}

// rulesPage is what the Rules page shows.
type rulesPage struct {
	// User is who acts on the page; empty before sign-in.
	User   string
	Notice *pageNotice
	// Listed is set when the page lists the rules (the reader may see
	// them); the other fields below are then filled.
	Listed  bool
	Rules   []ruleView
	Revoked []ruleView
	// SignIn asks to sign in on the inbox's page.
	SignIn bool
	// AlwaysAllow is the label of the option that makes a rule.
	AlwaysAllow string

	tr *i18n.Printer
}

// T is the page's message id in its reader's language.
func (p rulesPage) T(id string, args ...any) string { return p.printer().T(id, args...) }

// Lang is the page's language, for its lang attribute.
func (p rulesPage) Lang() string { return p.printer().Locale() }

func (p rulesPage) printer() *i18n.Printer {
	if p.tr == nil {
		return i18n.For(i18n.English)
	}
	return p.tr
}

// pageNotice is the line at the top of the page: what happened, or why
// nothing did (Bad).
type pageNotice struct {
	Text string
	Bad  bool
}

// bad is a notice saying why nothing happened.
func bad(text string) *pageNotice { return &pageNotice{Text: text, Bad: true} }

// ruleView is one rule as the page shows it: texts for people, each put
// into the page escaped.
type ruleView struct {
	ID   int64
	Tool string
	// Kind names the rule's kind (exact, prefix, glob) and What says what
	// its pattern is matched against: "Bash commands starting with".
	Kind, What string
	// Pattern is the pattern exactly as stored.
	Pattern string
	// Agent is the agent the rule is for, or "All agents".
	Agent string
	// Where is the project the rule holds in, or "Anywhere".
	Where string
	// By is who made it: the person's name when the account is linked to
	// one, and where ("Ana Lima (Slack)").
	By string
	// At is when it was made, in the inbox's time zone; AtISO the same
	// for the <time> element.
	At, AtISO string
	// Why is the reason given, and Question the question whose answer
	// made the rule.
	Why, Question string
	// Confirm opens the confirmation of its revocation (no-script path).
	Confirm bool
	// RevokedBy and RevokedAt say who revoked a revoked rule, and when.
	RevokedBy, RevokedAt, RevokedISO string
}

// rulesPage builds the page of rules for who, read in tr's language,
// with the confirmation of rule confirm open (0 for none).
func (c *Channel) rulesPage(tr *i18n.Printer, who identity, rules []broker.Rule, confirm int64) rulesPage {
	p := rulesPage{User: who.Name, Listed: true, AlwaysAllow: broker.AlwaysAllowLabel, tr: tr}
	for _, r := range rules {
		v := c.ruleView(tr, r)
		if r.Revoked != nil {
			p.Revoked = append(p.Revoked, v)
			continue
		}
		v.Confirm = r.ID == confirm
		p.Rules = append(p.Rules, v)
	}
	return p
}

// withNotice returns p with notice n.
func (c *Channel) withNotice(p rulesPage, n *pageNotice) rulesPage {
	p.Notice = n
	return p
}

func (c *Channel) ruleView(tr *i18n.Printer, r broker.Rule) ruleView {
	v := ruleView{
		ID: r.ID, Tool: r.Tool, Kind: tr.T("rules.kind." + r.Kind), What: ruleWhat(tr, r), Pattern: r.Pattern,
		Agent: r.Agent, Where: tr.T("rules.anywhere"), By: whoOn(tr, &r.By),
		At: c.when(tr, r.At), AtISO: r.At.UTC().Format(time.RFC3339),
		Why: r.Reason, Question: r.Question,
	}
	if v.Agent == "" {
		v.Agent = tr.T("rules.all_agents")
	}
	if r.Project != "" {
		v.Where = tr.T("rules.below", r.Project)
	}
	if r.Revoked != nil {
		v.RevokedBy, v.RevokedAt, v.RevokedISO = whoOn(tr, r.RevokedBy), c.when(tr, *r.Revoked), r.Revoked.UTC().Format(time.RFC3339)
	}
	return v
}

// ruleWhat says what a rule's pattern is matched against.
func ruleWhat(tr *i18n.Printer, r broker.Rule) string {
	switch {
	case r.Kind == broker.RulePrefix:
		return tr.T("rules.what.prefix", r.Tool)
	case r.Kind == broker.RuleGlob:
		return tr.T("rules.what.glob", r.Tool)
	case r.Tool == "Bash":
		return tr.T("rules.what.bash_exact")
	}
	return tr.T("rules.what.exact", r.Tool)
}

// accountPlaces names where an account acts (message ids), before
// platformNames.
var accountPlaces = map[string]string{
	Name: "rules.place.web", "api": "rules.place.api", broker.RuleChannel: "rules.place.rule", "cli": "rules.place.cli",
}

// whoOn says who acted and where: "Ana Lima (Slack)", "claude (agent
// key)".
func whoOn(tr *i18n.Printer, r *broker.Responder) string {
	if r == nil {
		return tr.T("who.someone")
	}
	where := platformNames[r.Channel]
	if id, ok := accountPlaces[r.Channel]; ok {
		where = tr.T(id)
	}
	if where == "" {
		where = r.Channel
	}
	return tr.T("rules.who_on", broker.WhoText(r), where)
}

// when writes t for people in the inbox's time zone, with the day, the
// month and the year in tr's language: "5 Dec 2026 16:00 UTC".
func (c *Channel) when(tr *i18n.Printer, t time.Time) string {
	t = t.In(c.loc)
	return tr.T("when.other_year", strconv.Itoa(t.Day()), tr.T("month."+strconv.Itoa(int(t.Month()))),
		strconv.Itoa(t.Year()), t.Format("15:04 MST"))
}

// showRules writes the Rules page with status.
func (c *Channel) showRules(w http.ResponseWriter, status int, p rulesPage) {
	var b bytes.Buffer
	if err := c.rulesTmpl.Execute(&b, p); err != nil {
		c.log.Error("render the Rules page", "err", err)
		http.Error(w, p.T("rules.broken"), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The page is in its reader's language: the signed-in person's (the
	// cookie) or the browser's.
	w.Header().Set("Vary", "Accept-Language, Cookie")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// cutRunes shortens s to n characters for a message.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
