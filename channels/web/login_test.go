package web

import (
	"context"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// testToken: beyond loopback the page asks for the token; a wrong one is
// refused with a clear message, the right one opens the inbox, and answers
// are recorded under the configured name.
func testToken(t *testing.T, browser context.Context) {
	const token = "correct-horse-battery-staple-42"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN", Name: "ops"}, Options{Loopback: false})
	q := e.ask(t, &broker.AskRequest{Question: "Restart the workers?", Options: []broker.Option{opt("Restart", ""), opt("Leave them", "")}})
	got := e.wait(t, q.ID)

	p := tab(t, browser, true) // a browser with no session yet
	open(t, p, e.url)
	if !eval[bool](t, p, `!document.getElementById('login').hidden && document.getElementById('inbox').hidden`) {
		t.Fatal("the page shows the inbox without a token")
	}
	if n := eval[int](t, p, `document.querySelectorAll('#open li').length`); n != 0 {
		t.Fatalf("%d questions shown before sign-in", n)
	}

	typeInto(t, p, "#token", "not-the-right-token-at-all\n")
	waitText(t, p, "#login-error", "Wrong token")
	if !eval[bool](t, p, `document.getElementById('inbox').hidden`) {
		t.Fatal("a wrong token opened the inbox")
	}

	typeInto(t, p, "#token", token+"\n")
	waitText(t, p, card(q.ID)+" .prompt-text", "Restart the workers?")
	if c := eval[string](t, p, `document.cookie`); c != "" {
		t.Fatalf("the session cookie is readable by scripts: %q", c)
	}
	do(t, p, reload())
	waitText(t, p, card(q.ID)+" .prompt-text", "Restart the workers?")

	pick(t, p, q.ID, 0, 1)
	waitText(t, p, "#notice", "Recorded: Leave them")
	a := result(t, got)
	if a.AnsweredBy == nil || a.AnsweredBy.Name != "ops" || a.AnsweredBy.Channel != Name {
		t.Fatalf("answered_by = %+v, want web/ops", a.AnsweredBy)
	}

	click(t, p, "#signout")
	waitText(t, p, "#login-error", "Signed out")
	do(t, p, reload())
	waitText(t, p, "#login-title", "Sign in")
}
