package web

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// A pending question whose route allows snoozing carries the Snooze
// control whose step the page's Snooze button posts; others carry none.
func TestViewSnooze(t *testing.T) {
	q := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, Prompts: []broker.Prompt{
		{Question: "Deploy?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}},
	}}
	if c, ok := control(render(q, time.Now(), time.UTC).Controls, broker.ControlSnooze); ok {
		t.Fatalf("snooze %+v on a route without snoozes, want none", c)
	}
	q.Policy.Snooze = &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}
	c, ok := control(render(q, time.Now(), time.UTC).Controls, broker.ControlSnooze)
	if !ok || c.Label != "Snooze" || c.Text || sends(t, c.Step, "") != "/snooze k7m2qx" {
		t.Fatalf("snooze %+v, want a Snooze button that sends /snooze k7m2qx", c)
	}
	q.Status = broker.StatusAnswered
	if v := render(q, time.Now(), time.UTC); len(v.Controls) != 0 {
		t.Fatalf("controls %+v on an answered question, want none", v.Controls)
	}
}

// snoozeRoute lets a question be snoozed once by 30 minutes.
var snoozeRoute = broker.Route{
	Targets: []broker.Target{{Channel: Name}},
	Policy:  broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 1}},
}

// Pressing Snooze in the inbox sends /snooze through the page's command
// path: the deadline moves by 30 minutes and the card shows the new one.
func TestPageSnooze(t *testing.T) {
	browser := newBrowser(t)
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Route: "snooze", Question: "Deploy 412?", Options: []broker.Option{opt("Allow", ""), opt("Deny", "")}})
	page := tab(t, browser, false)
	open(t, page, e.url)
	click(t, page, card(q.ID)+" button.snooze")
	waitText(t, page, "#notice", "Snoozed: "+q.ID+" now expires at")
	moved := e.get(t, q.ID)
	if !moved.ExpiresAt.Equal(q.ExpiresAt.Add(30 * time.Minute)) {
		t.Fatalf("expires_at %v, want %v", moved.ExpiresAt, q.ExpiresAt.Add(30*time.Minute))
	}
	waitText(t, page, card(q.ID)+" .deadline", render(moved, time.Now(), time.UTC).Deadline)
}
