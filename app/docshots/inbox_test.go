package docshots

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/web"
	"github.com/askbridge/askbridge/internal/browsertest"
)

// readers sign in to the inbox of the pictures, one per language.
var readers = []struct {
	person broker.Person
	token  string
}{
	{broker.Person{ID: "ana", Name: "Ana Lima", WebTokenEnv: "DOCSHOTS_ANA"}, "docshots-ana-token-0123456789"},
	{broker.Person{ID: "dora", Name: "Dora Weber", Locale: "de", WebTokenEnv: "DOCSHOTS_DORA"}, "docshots-dora-token-012345678"},
	{broker.Person{ID: "xa", Name: "Pseudo Reader", Locale: "en-XA", WebTokenEnv: "DOCSHOTS_XA"}, "docshots-xa-token-0123456789"},
}

// TestInboxShots makes docs/img/inbox-<lang>-<light|dark>.png: a
// two-question dialog in the web inbox on a phone (390×844), light and
// dark, for a reader of English, of German and of the pseudo-locale
// (docs/languages.md). Like TestDocShots it runs only with
// ASKBRIDGE_DOCSHOTS set.
func TestInboxShots(t *testing.T) {
	out := os.Getenv("ASKBRIDGE_DOCSHOTS")
	if out == "" {
		t.Skip("set ASKBRIDGE_DOCSHOTS to the folder the pictures go to (docs/img) to make them")
	}
	var ps []broker.Person
	for _, r := range readers {
		t.Setenv(r.person.WebTokenEnv, r.token)
		ps = append(ps, r.person)
	}
	dir, err := broker.NewPeople(ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: web.Name}}}},
		func(c *broker.Config) { c.Location, c.People, c.Logger = time.UTC, dir, quiet })
	inbox, err := web.New(web.Config{}, br, web.Options{Logger: quiet, Location: time.UTC, Lister: br.Store, Loopback: true,
		Sessions: br.Store.(broker.Sessions), Copies: br.Broker, People: dir, Rules: br.Broker})
	if err != nil {
		t.Fatal(err)
	}
	br.Start(inbox)
	ws := httptest.NewServer(inbox.Handler())
	t.Cleanup(func() { inbox.Close(); ws.Close() })

	q, _, err := br.Broker.Ask(context.Background(), "claude", &broker.AskRequest{
		SessionID: "docshots",
		Context:   "Moving the order service off the shared MySQL before the holiday freeze.",
		Questions: []broker.Prompt{
			{Header: "Database", Question: "Which database should the order service use?", Options: []broker.Option{
				{Label: "Postgres (Recommended)", Description: "Row locks, JSONB, the team knows it"},
				{Label: "SQLite", Description: "One file, no server to run"},
			}},
			{Header: "Regions", Question: "Which regions go first?", MultiSelect: true, Options: []broker.Option{
				{Label: "Europe"}, {Label: "Americas"}, {Label: "Asia"},
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	browser := browsertest.New(t)
	for _, r := range readers {
		lang := "en"
		if r.person.Locale != "" {
			lang = r.person.Locale
		}
		for _, scheme := range []string{"light", "dark"} {
			p, cancel := chromedp.NewContext(browser)
			if err := chromedp.Do(p, chromedp.Navigate("about:blank")); err != nil {
				t.Fatalf("open tab: %v", err)
			}
			do(t, p, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
				return err
			}),
				chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
				chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
					})
					return err
				}),
				chromedp.Navigate(ws.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#token")),
				chromedp.SendKeys(chromedp.CSS("#token"), r.token+"\n"))
			waitTrue(t, p, fmt.Sprintf(`!!document.querySelector('#q-%s fieldset') && document.getElementById('conn').classList.contains('live')`, q.ID))
			c, stop := context.WithTimeout(p, waitFor)
			shot, err := chromedp.Run(c, chromedp.CaptureScreenshot())
			stop()
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			write(t, filepath.Join(out, fmt.Sprintf("inbox-%s-%s.png", lang, scheme)), smaller(t, shot))
			cancel()
		}
	}
}
