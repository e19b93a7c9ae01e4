package web

import (
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

var (
	tags       = regexp.MustCompile(`<[^>]*>`)
	ariaLabels = regexp.MustCompile(`aria-label="([^"]*)"`)
	spaces     = regexp.MustCompile(`\s+`)
)

// pageWords is what a person reads of an HTML page: its text, its title
// and its elements' labels, unescaped, spaces collapsed.
func pageWords(body string) string {
	var b strings.Builder
	for _, m := range ariaLabels.FindAllStringSubmatch(body, -1) {
		b.WriteString(m[1] + " \n ")
	}
	b.WriteString(tags.ReplaceAllString(body, " "))
	return strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(b.String()), " "))
}

// germanDate is t as a German reader reads it on the page, written out
// here apart from the catalog: "4. Dez. 2026 09:05 UTC".
func germanDate(t time.Time) string {
	months := []string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."}
	t = t.UTC()
	return strconv.Itoa(t.Day()) + ". " + months[t.Month()-1] + " " + strconv.Itoa(t.Year()) + " " + t.Format("15:04") + " UTC"
}

// getRules sends a request to the Rules page with an Accept-Language
// header and returns the status, the HTML and the words a person reads.
func getRules(t *testing.T, method, url, accept string, header http.Header, cookies ...*http.Cookie) (int, string, string) {
	t.Helper()
	h := http.Header{"Accept-Language": {accept}}
	for k, v := range header {
		h[k] = v
	}
	status, _, body := send(t, method, url, h, "", cookies...)
	return status, body, pageWords(body)
}

// TestRulesPageGerman: the Rules page is in the signed-in person's
// language (Ana's locale is de), whatever the browser asks for, and in
// the browser's for a person without one: headings, labels, buttons,
// what each rule matches, who made it and when, and every notice.
func TestRulesPageGerman(t *testing.T) {
	people := team()
	people[0].Locale = "de"
	e := newRulesEnvOf(t, people)
	npm, grep := e.makeRule(t, npmRule), e.makeRule(t, grepRule)
	base := strings.TrimSuffix(e.url, "/")
	ana, bob := login(t, base, anaToken), login(t, base, bobToken)
	n, g := strconv.FormatInt(npm.ID, 10), strconv.FormatInt(grep.ID, 10)
	if status, _, body := send(t, http.MethodPost, base+"/rules/"+n+"/revoke", form, "", ana); status != http.StatusSeeOther {
		t.Fatalf("revoke rule %s: %d %q", n, status, body)
	}
	var revokedAt time.Time
	for _, r := range e.apiRules(t, true) {
		if r.ID == npm.ID && r.Revoked != nil {
			revokedAt = *r.Revoked
		}
	}
	if revokedAt.IsZero() {
		t.Fatalf("rule %s is not revoked", n)
	}

	status, body, words := getRules(t, http.MethodGet, base+"/rules?revoked="+n, "en-US,en;q=0.9", nil, ana)
	if status != http.StatusOK || !strings.Contains(body, `<html lang="de">`) {
		t.Fatalf("Ana's Rules page: %d, want 200 in German (lang=\"de\"):\n%s", status, body)
	}
	for _, want := range []string{
		"Regeln · askbridge-Posteingang",
		"Zu den Regeln springen",
		"Zu den Regeln springen ? askbridge-Posteingang Fragen Regeln angemeldet als Ana Lima",
		"Seiten des Posteingangs", // the navigation's label
		"Freigaberegeln (1 aktiv)",
		"Regel " + n + " wurde von Ana Lima (Web-Posteingang) am " + germanDate(revokedAt) + " widerrufen: Bei den Aufrufen, die sie erlaubte, wird wieder gefragt.",
		"Regeln entstehen, wenn jemand mit „Always allow“ antwortet",
		"Regel " + g + " Bash exakt Bash, genau dieser Befehl",
		"Agent agent Gilt für Überall Erstellt von Ana Lima (Web-Posteingang) Erstellt am " + germanDate(grep.At) + " Grund asked every build Aus Frage " + grep.Question,
		"Widerrufen (Regel " + g + ")",
		"Regel " + g + " widerrufen? Bei den Aufrufen, die sie erlaubt, wird dann wieder gefragt. Das lässt sich nicht rückgängig machen.",
		"Ja, Regel " + g + " widerrufen Abbrechen",
		"Widerrufene Regeln (1)",
		"Regel " + n + " Bash Präfix Bash-Befehle, die so beginnen npm test",
		"Widerrufen von Ana Lima (Web-Posteingang), " + germanDate(revokedAt),
	} {
		if !strings.Contains(words, want) {
			t.Errorf("Ana's Rules page lacks %q:\n%s", want, words)
		}
	}
	for _, english := range []string{"Approval rules", "Revoke", "Made by", "signed in as", "Anywhere", "web inbox", "Dec ", "exact"} {
		if strings.Contains(words, english) {
			t.Errorf("Ana's Rules page still says %q:\n%s", english, words)
		}
	}

	// Bob has no locale: the browser's language (?lang=, else
	// Accept-Language) is the page's.
	for _, u := range []string{base + "/rules?lang=de", base + "/rules"} {
		if _, _, words := getRules(t, http.MethodGet, u, "de-DE,de;q=0.9", nil, bob); !strings.Contains(words, "Freigaberegeln (1 aktiv)") || !strings.Contains(words, "angemeldet als bob") {
			t.Errorf("Bob's Rules page (%s, Accept-Language de) is not German:\n%s", u, words)
		}
	}
	if _, _, words := getRules(t, http.MethodGet, base+"/rules", "en", nil, bob); !strings.Contains(words, "Approval rules (1 in force)") {
		t.Errorf("Bob's Rules page in English:\n%s", words)
	}

	// Every refusal, in German.
	for _, tc := range []struct {
		name, method, url string
		header            http.Header
		cookie            *http.Cookie
		status            int
		want              string
	}{
		{"not signed in", http.MethodGet, base + "/rules", nil, nil, 401, "Melden Sie sich zuerst im Posteingang an und öffnen Sie dann die Regeln erneut. Im Posteingang anmelden"},
		{"revoke, not signed in", http.MethodPost, base + "/rules/" + g + "/revoke", form, nil, 401, "öffnen Sie dann die Regeln erneut. Nichts wurde widerrufen."},
		{"cross-site", http.MethodPost, base + "/rules/" + g + "/revoke", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}}, ana, 403, "Abgelehnt: Diese Anfrage kam von einer anderen Website (nur die eigenen Seiten des Posteingangs dürfen hierher senden). Nichts wurde widerrufen."},
		{"not a form", http.MethodPost, base + "/rules/" + g + "/revoke", http.Header{"Content-Type": {"application/json"}}, ana, 415, "Abgelehnt: Senden Sie das Formular der Regelseite"},
		{"unknown rule", http.MethodPost, base + "/rules/77/revoke", form, ana, 404, `Es gibt keine Regel "77": Nichts wurde widerrufen.`},
		{"confirm an unknown rule", http.MethodGet, base + "/rules?revoke=abc", nil, ana, 404, `Es gibt keine Regel "abc": Es gibt nichts zu widerrufen.`},
		{"revoked before", http.MethodPost, base + "/rules/" + n + "/revoke", form, ana, 409, "Regel " + n + " wurde bereits von Ana Lima (Web-Posteingang) am " + germanDate(revokedAt) + " widerrufen: Nichts hat sich geändert."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cookies []*http.Cookie
			if tc.cookie != nil {
				cookies = append(cookies, tc.cookie)
			}
			status, _, words := getRules(t, tc.method, tc.url, "de", tc.header, cookies...)
			if status != tc.status || !strings.Contains(words, tc.want) {
				t.Fatalf("%d %q, want %d with %q", status, words, tc.status, tc.want)
			}
		})
	}
}

// TestRulesPagePseudo: in the pseudo-locale every word of the Rules page
// is in brackets, on every path through it, except the rules' own texts,
// people's names, the question ids and the zone.
func TestRulesPagePseudo(t *testing.T) {
	e := newRulesEnv(t)
	npm, grep := e.makeRule(t, npmRule), e.makeRule(t, grepRule)
	base := strings.TrimSuffix(e.url, "/")
	bob := login(t, base, bobToken)
	n, g := strconv.FormatInt(npm.ID, 10), strconv.FormatInt(grep.ID, 10)
	if status, _, body := send(t, http.MethodPost, base+"/rules/"+n+"/revoke", form, "", bob); status != http.StatusSeeOther {
		t.Fatalf("revoke rule %s: %d %q", n, status, body)
	}
	// What the rules say as they were made: patterns, project, reason,
	// question ids, tool and agent; people's names; the zone; the label
	// agents give the option that makes a rule; a media type.
	keep := []string{npm.Pattern, grep.Pattern, npm.Project, npm.Reason, npm.Question, grep.Question,
		"Bash", "agent", "Ana Lima", "bob", "UTC", broker.AlwaysAllowLabel, "application/x-www-form-urlencoded"}

	for _, tc := range []struct {
		name, method, url string
		header            http.Header
		signedIn          bool
		status            int
	}{
		{"the rules, one revoked", http.MethodGet, base + "/rules?revoked=" + n, nil, true, 200},
		{"a confirmation", http.MethodGet, base + "/rules?revoke=" + g, nil, true, 200},
		{"not signed in", http.MethodGet, base + "/rules", nil, false, 401},
		{"revoke, not signed in", http.MethodPost, base + "/rules/" + g + "/revoke", form, false, 401},
		{"cross-site", http.MethodPost, base + "/rules/" + g + "/revoke", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}}, true, 403},
		{"not a form", http.MethodPost, base + "/rules/" + g + "/revoke", http.Header{"Content-Type": {"text/plain"}}, true, 415},
		{"unknown rule", http.MethodPost, base + "/rules/77/revoke", form, true, 404},
		{"revoked before", http.MethodGet, base + "/rules?revoke=" + n, nil, true, 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cookies []*http.Cookie
			if tc.signedIn {
				cookies = append(cookies, bob)
			}
			status, body, words := getRules(t, tc.method, tc.url, "en-XA", tc.header, cookies...)
			if status != tc.status || !strings.Contains(body, `<html lang="en-XA">`) {
				t.Fatalf("%d, want %d in en-XA:\n%s", status, tc.status, body)
			}
			if !strings.Contains(words, "[") {
				t.Fatalf("no pseudo-localised text:\n%s", words)
			}
			if left := i18ntest.Untranslated(words, keep...); len(left) > 0 {
				t.Fatalf("words not from the catalog: %q in\n%s", left, words)
			}
		})
	}
}

// TestRuleViewGerman: each kind of rule, and each place a person or an
// agent acts from, in German.
func TestRuleViewGerman(t *testing.T) {
	c := &Channel{loc: time.UTC}
	tr := i18n.For(i18n.German)
	at := time.Date(2026, 3, 5, 16, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		rule                  broker.Rule
		kind, what, where, by string
	}{
		{broker.Rule{Tool: "Bash", Kind: broker.RulePrefix, Pattern: "npm test", By: broker.Responder{Channel: "slack", User: "U1", Name: "Ana Lima"}},
			"Präfix", "Bash-Befehle, die so beginnen", "Überall", "Ana Lima (Slack)"},
		{broker.Rule{Tool: "Edit", Kind: broker.RuleGlob, Pattern: "src/**", Project: "/srv/app", By: broker.Responder{Channel: "api", User: "claude"}},
			"Muster", "Edit für Pfade, die auf dieses Muster passen", "/srv/app und darunter", "claude (Agentenschlüssel)"},
		{broker.Rule{Tool: "Bash", Kind: broker.RuleExact, Pattern: "make", By: broker.Responder{Channel: "cli", User: "ops"}},
			"exakt", "Bash, genau dieser Befehl", "Überall", "ops (Textkanal)"},
		{broker.Rule{Tool: "Write", Kind: broker.RuleExact, Pattern: "/tmp/x", By: broker.Responder{Channel: broker.RuleChannel, User: "3"}},
			"exakt", "Write für genau diesen Pfad", "Überall", "3 (Regel)"},
	} {
		tc.rule.At = at
		v := c.ruleView(tr, tc.rule)
		got := []string{v.Kind, v.What, v.Where, v.By, v.Agent, v.At}
		want := []string{tc.kind, tc.what, tc.where, tc.by, "Alle Agenten", "5. März 2026 16:00 UTC"}
		if !slices.Equal(got, want) {
			t.Errorf("rule %+v shows %q, want %q", tc.rule, got, want)
		}
	}
	if got := whoOn(tr, nil); got != "jemand" {
		t.Errorf("nobody named: %q, want jemand", got)
	}
}
