package web

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/askbridge/askbridge/broker"
)

// signInToRules signs Ana in on the inbox in tab p, follows the header's
// link to the Rules page and waits for it.
func signInToRules(t *testing.T, p context.Context, e *rulesEnv) {
	t.Helper()
	open(t, p, e.url)
	typeInto(t, p, "#token", anaToken+"\n")
	waitText(t, p, "#user", "signed in as Ana Lima")
	click(t, p, `.nav a[href="/rules"]`)
	waitURL(t, p, e.url+"rules")
	waitText(t, p, "#user", "signed in as Ana Lima")
}

// ruleText returns the text of the element css matches in rule id's card.
func ruleText(t *testing.T, p context.Context, id int64, css string) string {
	t.Helper()
	return eval[string](t, p, fmt.Sprintf(`(() => { const e = document.querySelector('#rule-%d %s'); return e ? e.textContent : '(none)'; })()`, id, css))
}

// TestRulesPage drives the Rules page in Chromium. testRulesRevoke: a
// person signed in sees every rule with its pattern exactly as stored, revokes one after
// confirming in the page, and GET /v1/rules then lists only the other; a
// page left open that revokes it again, and a rule that does not exist,
// are told so and change nothing; without scripts the same buttons
// revoke; without sign-in the page shows no rule.
func TestRulesPage(t *testing.T) {
	browser := newBrowser(t)
	t.Run("revoke", func(t *testing.T) { testRulesRevoke(t, browser) })
	t.Run("phone, dark mode, keyboard", func(t *testing.T) { testRulesPhone(t, browser) })
}

func testRulesRevoke(t *testing.T, browser context.Context) {
	e := newRulesEnv(t)
	npm, grep := e.makeRule(t, npmRule), e.makeRule(t, grepRule)

	// Tabs in the browser's own context share one cookie jar, as the
	// tabs of one person's browser do.
	p := tab(t, browser, false)
	signInToRules(t, p, e)
	waitText(t, p, "#rules-count", "(2 in force)")
	for _, tc := range []struct {
		rule      broker.Rule
		what      string
		where     string
		agentText string
	}{
		{npm, "Bash commands starting with", "/home/ana/app and below", "agent"},
		{grep, "Bash, exactly this command", "Anywhere", "agent"},
	} {
		got := map[string]string{}
		for _, css := range []string{".pattern", ".what", ".where", ".agent", ".by", ".why"} {
			got[css] = ruleText(t, p, tc.rule.ID, css)
		}
		want := map[string]string{".pattern": tc.rule.Pattern, ".what": tc.what, ".where": tc.where, ".agent": tc.agentText,
			".by": "Ana Lima (web inbox)", ".why": "asked every build"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rule %d shows %q, want %q", tc.rule.ID, got, want)
		}
	}
	if n := eval[int](t, p, `document.querySelectorAll('#rules main, #rules script').length`); n != 0 {
		t.Fatalf("a pattern became markup: %d elements", n)
	}

	// A second tab opens the confirmation of the first rule now, and
	// confirms it only after the first tab revoked it.
	stale := tab(t, browser, false)
	do(t, stale, chromedp.Navigate(e.url+"rules"))
	click(t, stale, fmt.Sprintf("#rule-%d button.revoke", npm.ID))
	waitVisible(t, stale, fmt.Sprintf("#confirm-%d", npm.ID))

	// Revoke asks in the page, without loading it again; Cancel keeps
	// the rule.
	revoke, confirm := fmt.Sprintf("#rule-%d button.revoke", npm.ID), fmt.Sprintf("#confirm-%d", npm.ID)
	click(t, p, revoke)
	waitVisible(t, p, confirm)
	if !eval[bool](t, p, fmt.Sprintf(`document.activeElement === document.querySelector('%s button.danger') && location.search === ''`, confirm)) {
		t.Fatalf("the confirmation is not in the page with its button focused (at %s)", eval[string](t, p, `location.href`))
	}
	waitText(t, p, confirm+" .confirm-text", fmt.Sprintf("Revoke rule %d? The calls it allows will be asked again.", npm.ID))
	click(t, p, confirm+" .cancel")
	if !eval[bool](t, p, fmt.Sprintf(`document.querySelector('%s').hidden && document.activeElement === document.querySelector('%s')`, confirm, revoke)) {
		t.Fatal("Cancel left the confirmation open, or the focus elsewhere than Revoke")
	}
	if got := ids(e.apiRules(t, false)); !reflect.DeepEqual(got, []int64{npm.ID, grep.ID}) {
		t.Fatalf("after Cancel GET /v1/rules lists %v", got)
	}
	click(t, p, revoke)
	click(t, p, confirm+" button.danger")
	waitURL(t, p, fmt.Sprintf("%srules?revoked=%d#notice", e.url, npm.ID))
	waitText(t, p, "#notice", fmt.Sprintf("Rule %d is revoked, by Ana Lima (web inbox) at ", npm.ID))
	waitGone(t, p, fmt.Sprintf("#rule-%d", npm.ID))
	waitText(t, p, "#rules-count", "(1 in force)")
	if got := ruleText(t, p, grep.ID, ".pattern"); got != grep.Pattern {
		t.Fatalf("the other rule shows %q", got)
	}
	waitText(t, p, fmt.Sprintf("#revoked-%d .revoked-by", npm.ID), "Ana Lima (web inbox)")
	if got := ids(e.apiRules(t, false)); !reflect.DeepEqual(got, []int64{grep.ID}) {
		t.Fatalf("GET /v1/rules lists %v after the revocation, want only %d", got, grep.ID)
	}

	// Revoking again from the page left open, and revoking a rule that
	// does not exist, say so and change nothing.
	before := e.apiRules(t, true)
	click(t, stale, fmt.Sprintf("#confirm-%d button.danger", npm.ID))
	waitURL(t, stale, fmt.Sprintf("%srules/%d/revoke", e.url, npm.ID))
	waitText(t, stale, "#notice", fmt.Sprintf("Rule %d was already revoked by Ana Lima (web inbox) at ", npm.ID))
	waitText(t, stale, "#notice", "nothing changed")
	do(t, p, chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.createElement('form');
		f.method = 'post';
		f.action = '/rules/77/revoke';
		document.body.append(f);
		f.submit();
	})()`))
	waitURL(t, p, e.url+"rules/77/revoke")
	waitText(t, p, "#notice", `There is no rule "77": nothing was revoked.`)
	if after := e.apiRules(t, true); !reflect.DeepEqual(after, before) {
		t.Fatalf("the rules changed:\n%+v\nwant\n%+v", after, before)
	}

	// Without scripts, Revoke loads the page with the confirmation open,
	// and the same form revokes.
	ns := tab(t, browser, false)
	do(t, ns, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(e.url+"rules"))
	// With scripts the click would open the confirmation in the page:
	// here it loads the page again.
	click(t, ns, fmt.Sprintf("#rule-%d button.revoke", grep.ID))
	waitURL(t, ns, fmt.Sprintf("%srules?revoke=%d#rule-%d", e.url, grep.ID, grep.ID))
	waitVisible(t, ns, fmt.Sprintf("#confirm-%d", grep.ID))
	click(t, ns, fmt.Sprintf("#confirm-%d button.danger", grep.ID))
	waitURL(t, ns, fmt.Sprintf("%srules?revoked=%d#notice", e.url, grep.ID))
	waitText(t, ns, "#notice", fmt.Sprintf("Rule %d is revoked, by Ana Lima (web inbox)", grep.ID))
	waitText(t, ns, "#rules-empty", "No rules in force.")
	if got := e.apiRules(t, false); len(got) != 0 {
		t.Fatalf("GET /v1/rules lists %v after both were revoked", ids(got))
	}

	// Without sign-in, the page asks for it and shows no rule.
	anon := tab(t, browser, true)
	do(t, anon, chromedp.Navigate(e.url+"rules"))
	waitText(t, anon, "#notice", "Sign in to the inbox first")
	if n := eval[int](t, anon, `document.querySelectorAll('.rule, .pattern').length`); n != 0 {
		t.Fatalf("the page shows %d rules before sign-in", n)
	}
	if body := pageText(anon, "body"); strings.Contains(body, "npm test") {
		t.Fatalf("the page shows a pattern before sign-in: %q", body)
	}
}

// waitVisible waits until the element css matches is shown.
func waitVisible(t *testing.T, p context.Context, css string) {
	t.Helper()
	do(t, p, chromedp.WaitVisible(chromedp.CSS(css)))
}

// testRulesPhone: on a phone-sized screen in dark mode the Rules page
// fits the width, even with a long pattern, has the landmarks and names
// the inbox's page has, and a person revokes with the keyboard alone.
func testRulesPhone(t *testing.T, browser context.Context) {
	e := newRulesEnv(t)
	long := broker.Rule{Tool: "Write", Kind: broker.RuleGlob, Project: "/home/ana/app",
		Pattern: "/home/ana/app/src/generated/averyveryverylongdirectorynamewithoutanybreaksatall/*.pb.go"}
	npm, wide := e.makeRule(t, npmRule), e.makeRule(t, long)
	p := tab(t, browser, true)
	do(t, p,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
			})
			return err
		}))
	signInToRules(t, p, e)
	if got := ruleText(t, p, wide.ID, ".pattern"); got != wide.Pattern {
		t.Fatalf("the long pattern shows %q", got)
	}
	if w := eval[int](t, p, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		t.Errorf("the page is %d px wider than a 390 px phone screen", w)
	}
	if dark := eval[bool](t, p, `(() => { const m = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number); return m[0] + m[1] + m[2] < 150; })()`); !dark {
		t.Errorf("dark mode: body background is %s", eval[string](t, p, `getComputedStyle(document.body).backgroundColor`))
	}
	unnamed := eval[string](t, p, `Array.from(document.querySelectorAll('a, button')).filter((e) => e.getClientRects().length && !e.textContent.trim()).map((e) => e.outerHTML).join(' ')`)
	if unnamed != "" {
		t.Errorf("controls without a name: %s", unnamed)
	}
	if !eval[bool](t, p, `document.documentElement.lang === 'en' && document.querySelectorAll('h1').length === 1 && !!document.querySelector('main') && !!document.querySelector('nav[aria-label] a[aria-current="page"][href="/rules"]')`) {
		t.Error("the page lacks its language, one h1, main, or the navigation marking Rules as the current page")
	}

	// Tab to the first Revoke, see the focus ring, open the confirmation
	// with Enter, close it with Escape, then revoke with Enter twice.
	revoke := fmt.Sprintf("#rule-%d button.revoke", npm.ID)
	for range 8 {
		if eval[bool](t, p, fmt.Sprintf(`document.activeElement === document.querySelector('%s')`, revoke)) {
			break
		}
		do(t, p, chromedp.KeyEvent("\t"))
	}
	if !eval[bool](t, p, fmt.Sprintf(`document.activeElement === document.querySelector('%s')`, revoke)) {
		t.Fatalf("Tab did not reach Revoke; focus is on %s", eval[string](t, p, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	if s := eval[string](t, p, `getComputedStyle(document.activeElement).outlineStyle`); s == "none" {
		t.Error("the focused Revoke shows no focus ring")
	}
	do(t, p, chromedp.KeyEvent("\r"))
	confirm := fmt.Sprintf("#confirm-%d", npm.ID)
	waitVisible(t, p, confirm)
	if !eval[bool](t, p, fmt.Sprintf(`document.activeElement === document.querySelector('%s button.danger')`, confirm)) {
		t.Fatalf("the confirmation's button has no focus; focus is on %s", eval[string](t, p, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	do(t, p, chromedp.KeyEvent(kb.Escape))
	if !eval[bool](t, p, fmt.Sprintf(`document.querySelector('%s').hidden && document.activeElement === document.querySelector('%s')`, confirm, revoke)) {
		t.Fatal("Escape left the confirmation open, or the focus elsewhere than Revoke")
	}
	do(t, p, chromedp.KeyEvent("\r"))
	waitVisible(t, p, confirm)
	do(t, p, chromedp.KeyEvent("\r"))
	waitURL(t, p, fmt.Sprintf("%srules?revoked=%d#notice", e.url, npm.ID))
	waitText(t, p, "#notice", fmt.Sprintf("Rule %d is revoked", npm.ID))
	if got := ids(e.apiRules(t, false)); !reflect.DeepEqual(got, []int64{wide.ID}) {
		t.Fatalf("GET /v1/rules lists %v, want only %d", got, wide.ID)
	}
	if w := eval[int](t, p, `(() => { document.querySelector('details.revoked-rules').open = true; return document.documentElement.scrollWidth - window.innerWidth; })()`); w > 0 {
		t.Errorf("with the revoked rules open, the page is %d px wider than the screen", w)
	}
}
