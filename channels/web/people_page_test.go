package web

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

// TestPagePeople signs people in in a real Chromium: with their own
// token, and through single sign-on with the test's provider; the header
// says who is signed in, and answers are theirs. While the provider does
// not answer, the sign-in page says so and the token still works.
func TestPagePeople(t *testing.T) {
	browser := newBrowser(t)

	t.Run("own token", func(t *testing.T) {
		setTeamTokens(t)
		e := newPeopleEnv(t, Config{TokenEnv: "TEST_SHARED_TOKEN"}, false, team())
		q := e.ask(t, &broker.AskRequest{Question: "Roll back the release?", Options: []broker.Option{opt("Roll back", ""), opt("Keep it", "")}})
		got := e.wait(t, q.ID)
		p := tab(t, browser, true)
		open(t, p, e.url)
		if !eval[bool](t, p, `!document.getElementById('login-form').hidden && document.getElementById('sso').hidden`) {
			t.Fatal("the sign-in page does not offer the token alone")
		}
		typeInto(t, p, "#token", anaToken+"\n")
		waitText(t, p, "#user", "signed in as Ana Lima")
		pick(t, p, q.ID, 0, 0)
		waitText(t, p, "#notice", "Recorded: Roll back")
		a := result(t, got)
		if by := a.AnsweredBy; by == nil || by.User != "ana" || by.Name != "Ana Lima" || by.Person == nil || by.Person.ID != "ana" {
			t.Fatalf("answered_by %+v, want ana", by)
		}
	})

	t.Run("single sign-on", func(t *testing.T) {
		idp := newFakeIdP(t)
		idp.signInAs("bob@example.com", yes())
		e := ssoEnv(t, idp)
		waitDiscovery(t, e.ch)
		p := tab(t, browser, true)
		open(t, p, e.url)
		waitText(t, p, "#sso-button", "Sign in with single sign-on")
		if !eval[bool](t, p, `document.getElementById('sso-note').hidden`) {
			t.Fatal("the sign-in page says single sign-on is unavailable while the provider answers")
		}
		click(t, p, "#sso-button")
		// The tab leaves for the provider and comes back: wait across the
		// navigations.
		afterNavigation(t, p, `document.getElementById('user').textContent`, "signed in as bob")
		if eval[bool](t, p, `document.getElementById('inbox').hidden`) {
			t.Fatal("signed in, but the inbox is hidden")
		}
	})

	t.Run("single sign-on unavailable", func(t *testing.T) {
		idp := newFakeIdP(t)
		idp.set(func(f *fakeIdP) { f.down = true })
		e := ssoEnv(t, idp)
		waitDiscovery(t, e.ch)
		p := tab(t, browser, true)
		open(t, p, e.url)
		waitText(t, p, "#sso-note", "Single sign-on is unavailable right now")
		typeInto(t, p, "#token", anaToken+"\n")
		waitText(t, p, "#user", "signed in as Ana Lima")
	})
}

// afterNavigation waits until expr is want in the tab, across page loads
// (while a page is replaced, evaluating fails; that is not the answer).
func afterNavigation(t *testing.T, tab context.Context, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	last := ""
	for time.Now().Before(deadline) {
		c, cancel := context.WithTimeout(tab, time.Second)
		v, err := chromedp.Run(c, chromedp.Evaluate[string](expr))
		cancel()
		if err == nil && v == want {
			return
		}
		last = v
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the tab never showed %q (last %q)", want, last)
}
