package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

// browserZone makes the tab's browser live in zone, as a person's
// computer set to it.
func browserZone(t *testing.T, p context.Context, zone string) {
	t.Helper()
	do(t, p, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	}))
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestInboxTimeZone: the inbox shows every time in the person's own zone
// (people[].timezone), whatever their browser's; without one, in the
// browser's. The expiry, the history's times and the replies to typed
// commands all read so, in one form.
func TestInboxTimeZone(t *testing.T) {
	browser := newBrowser(t)
	// The questions expire two days on, so that the date shows too.
	ask := func(e *env, question string) *broker.Question {
		d := broker.Duration(48 * time.Hour)
		return e.ask(t, &broker.AskRequest{Question: question, Timeout: &d,
			Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	}

	t.Run("the person's own zone", func(t *testing.T) {
		setTeamTokens(t)
		people := team()
		people[0].Timezone = "Asia/Tokyo"
		e := newPeopleEnv(t, Config{TokenEnv: "TEST_SHARED_TOKEN"}, false, people)
		tokyo := zone(t, "Asia/Tokyo")
		q := ask(e, "Roll back the release?")
		done := ask(e, "Rotate the keys?")
		p := tab(t, browser, true)
		browserZone(t, p, "America/Sao_Paulo")
		open(t, p, e.url)
		typeInto(t, p, "#token", anaToken+"\n")
		waitText(t, p, "#user", "signed in as Ana Lima")
		want := "Expires " + broker.WhenText(q.ExpiresAt, time.Now(), tokyo)
		waitText(t, p, card(q.ID)+" .deadline", want)
		if s := pageText(p, card(q.ID)+" .deadline"); !strings.Contains(s, "JST") {
			t.Fatalf("the expiry reads %q, want Tokyo time", s)
		}
		pick(t, p, done.ID, 0, 1)
		waitText(t, p, past(done.ID)+" .outcome", "JST")
		resolved := e.get(t, done.ID).ResolvedAt
		waitText(t, p, past(done.ID)+" time", broker.WhenText(resolved, time.Now(), tokyo))
		// A typed /pending answers in her zone too.
		typeInto(t, p, "#cmd", "/pending\n")
		waitText(t, p, "#notice", fmt.Sprintf("%s: Roll back the release? (%s", q.ID, want))
	})

	t.Run("the browser's zone", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		ny := zone(t, "America/New_York")
		q := ask(e, "Ship on Friday?")
		p := tab(t, browser, true)
		browserZone(t, p, "America/New_York")
		open(t, p, e.url)
		waitText(t, p, "#conn", "live")
		waitText(t, p, card(q.ID)+" .deadline", "Expires "+broker.WhenText(q.ExpiresAt, time.Now(), ny))
		// A live event reads the browser's zone as the state does.
		done := ask(e, "Rotate the keys?")
		waitText(t, p, card(done.ID)+" .deadline", "Expires "+broker.WhenText(done.ExpiresAt, time.Now(), ny))
		pick(t, p, done.ID, 0, 0)
		waitText(t, p, past(done.ID)+" .outcome", "EST")
		resolved := e.get(t, done.ID).ResolvedAt
		waitText(t, p, past(done.ID)+" time", broker.WhenText(resolved, time.Now(), ny))
	})
}
