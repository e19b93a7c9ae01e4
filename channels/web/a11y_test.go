package web

import (
	"context"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// testPhoneDarkKeyboard: on a phone-sized screen in dark mode the page fits
// the width, and a person answers with the keyboard alone.
func testPhoneDarkKeyboard(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{
		Question: "Which of these long-named environments should receive the canary build first?",
		Header:   "Canary",
		Context:  strings.Repeat("averyveryverylongwordwithoutanybreaks", 4),
		Options:  []broker.Option{opt("Staging (Recommended)", "Mirrors production traffic"), opt("Preview", "")},
	})
	got := e.wait(t, q.ID)
	p := tab(t, browser, true)
	do(t, p,
		chromedp.EmulateViewport(375, 740, chromedp.EmulateMobile),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
			})
			return err
		}))
	open(t, p, e.url)
	waitText(t, p, card(q.ID)+" .chip", "Canary")
	if w := eval[int](t, p, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		t.Errorf("the page is %d px wider than a 375 px phone screen", w)
	}
	if dark := eval[bool](t, p, `(() => { const m = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number); return m[0] + m[1] + m[2] < 150; })()`); !dark {
		t.Errorf("dark mode: body background is %s", eval[string](t, p, `getComputedStyle(document.body).backgroundColor`))
	}

	// Tab to the options, see the focus ring, pick the recommended one
	// with Space, press Enter to submit.
	for range 6 {
		if eval[bool](t, p, `document.activeElement.type === 'radio'`) {
			break
		}
		do(t, p, chromedp.KeyEvent("\t"))
	}
	if !eval[bool](t, p, `document.activeElement.type === 'radio' && document.activeElement.value === '1'`) {
		t.Fatalf("Tab did not reach the recommended option; focus is on %s", eval[string](t, p, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	if s := eval[string](t, p, `getComputedStyle(document.activeElement).outlineStyle`); s == "none" {
		t.Error("the focused option shows no focus ring")
	}
	do(t, p, chromedp.KeyEvent(" "))
	do(t, p, chromedp.KeyEvent("\r"))
	waitText(t, p, "#notice", "Recorded: Staging")
	if a := result(t, got); a.Status != broker.StatusAnswered {
		t.Fatalf("agent got %s", a.Status)
	}
}
