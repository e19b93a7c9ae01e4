package docshots

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/app/hooks"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/slack"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/channels/web"
	"github.com/askbridge/askbridge/internal/browsertest"
	"github.com/askbridge/askbridge/internal/cmdline"
)

const (
	anaToken = "docshots-ana-token-0123456789"
	agentKey = "docshots-claude-key-0123456789"
	// devChat is the Slack channel the default route posts to, beside
	// the inbox.
	devChat = "C0DEV0001"
	// maxPNG is the most a picture in docs/img may weigh.
	maxPNG = 200 << 10
	// waitFor bounds every wait.
	waitFor = 20 * time.Second
	session = "8c1f4b2e-5d7a-4e1b-9a3f-2c6d8e0f1a2b"
)

// bo answers in Slack; Ana signs in to the inbox with her own token.
var (
	bo     = slackfake.User{ID: "U0BO00001", Name: "bo"}
	people = []broker.Person{
		{ID: "ana", Name: "Ana Lima", WebTokenEnv: "DOCSHOTS_ANA_TOKEN"},
		{ID: "bo", Name: "Bo Chen", Accounts: []string{"slack:" + bo.ID}},
	}
)

// The events Claude Code sends the hook: the test run of the pictures,
// with the agent's suggestion of a rule, and an edit in the project.
const (
	npmEvent = `{"session_id":"` + session + `","cwd":"/home/ana/shop","permission_mode":"default",` +
		`"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_use_id":"toolu_01NpmTestWatchFalse",` +
		`"tool_input":{"command":"npm test -- --watch=false","description":"Run the test suite once"},` +
		`"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"}],"behavior":"allow","destination":"localSettings"}]}`
	editEvent = `{"session_id":"` + session + `","cwd":"/home/ana/shop","permission_mode":"default",` +
		`"hook_event_name":"PermissionRequest","tool_name":"Edit","tool_use_id":"toolu_02EditCartTotal",` +
		`"tool_input":{"file_path":"/home/ana/shop/src/cart/total.ts","old_string":"return sum;","new_string":"return Math.round(sum * 100) / 100;"},` +
		`"permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}`
)

// sizes are the screens photographed: a phone and a laptop.
var sizes = []struct {
	name          string
	width, height int64
	phone         bool
}{{"390", 390, 844, true}, {"1280", 1280, 800, false}}

// TestDocShots makes the pictures and the Slack excerpt of
// docs/agents.md; see the package doc.
func TestDocShots(t *testing.T) {
	out := os.Getenv("ASKBRIDGE_DOCSHOTS")
	if out == "" {
		t.Skip("set ASKBRIDGE_DOCSHOTS to the folder the pictures go to (docs/img) to make them")
	}
	b := startBridge(t)
	browser := browsertest.New(t)
	p, cancel := chromedp.NewContext(browser)
	defer cancel()
	// The tab's first action opens it, and must not carry a timeout.
	if err := chromedp.Do(p, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	do(t, p, chromedp.Navigate(b.inbox), chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), anaToken+"\n"))
	waitTrue(t, p, `document.getElementById('user').textContent === 'signed in as Ana Lima'`)

	// (a) The hook asks about the test run; the inbox and Slack show it.
	npm := runHook(npmEvent)
	q := b.pending(t)
	msg := b.posted(t, q.ID)
	// The blocks exactly as the channel sent them, only indented.
	var blocks bytes.Buffer
	if err := json.Indent(&blocks, msg.Blocks, "", "  "); err != nil {
		t.Fatalf("the Slack message's blocks: %v", err)
	}
	blocks.WriteByte('\n')
	write(t, filepath.Join(out, "permission-prompt.slack.json"), blocks.Bytes())
	card := "#q-" + q.ID
	shoot(t, p, b.inbox, card+" .copies", out, "permission-prompt")

	// Ana picks "Always allow" in the inbox: the hook allows the call,
	// and the bridge keeps the rule it offered.
	k := option(t, q, "Always allow")
	do(t, p, chromedp.Click(chromedp.CSS(fmt.Sprintf("#q-%s-0-%d", q.ID, k)), chromedp.NodeVisible),
		chromedp.Click(chromedp.CSS(card+" fieldset:nth-of-type(1) button.submit"), chromedp.NodeVisible))
	allowed(t, npm)

	// Bo picks "Always allow" in Slack on the hook's question about an
	// edit: a second rule.
	edit := runHook(editEvent)
	q2 := b.pending(t)
	b.tap(t, b.posted(t, q2.ID), "Always allow")
	allowed(t, edit)

	// (b) The Rules page with the two rules.
	rules, err := b.br.Rules(context.Background(), "", false)
	if err != nil || len(rules) != 2 {
		t.Fatalf("rules %+v (%v), want the two that were picked", rules, err)
	}
	shoot(t, p, b.inbox+"rules", fmt.Sprintf("#rule-%d", rules[1].ID), out, "rules")
}

// testBridge is the bridge of the pictures.
type testBridge struct {
	br    *channeltest.Bridge
	fake  *slackfake.Server
	inbox string
}

// startBridge starts the broker with the inbox and Slack as the default
// route, the API for the hook (agent "claude"), and points the hook at
// it.
func startBridge(t *testing.T) *testBridge {
	t.Setenv("DOCSHOTS_ANA_TOKEN", anaToken)
	t.Setenv("DOCSHOTS_SLACK_BOT", slackfake.BotToken)
	t.Setenv("DOCSHOTS_SLACK_APP", slackfake.AppToken)
	dir, err := broker.NewPeople(people, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake := slackfake.New(t)
	fake.AddUser(bo)
	quiet := slog.New(slog.DiscardHandler)
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: web.Name}, {Channel: slack.Name, Chat: devChat}}}},
		func(c *broker.Config) { c.Location, c.People, c.Logger = time.UTC, dir, quiet })
	sl, err := slack.New(slack.Config{BotTokenEnv: "DOCSHOTS_SLACK_BOT", AppTokenEnv: "DOCSHOTS_SLACK_APP", APIURL: fake.URL}, br, channels.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	br.Start(sl)
	inbox, err := web.New(web.Config{}, br, web.Options{Logger: quiet, Location: time.UTC, Lister: br.Store, Loopback: true,
		Sessions: br.Store.(broker.Sessions), Copies: br.Broker, People: dir, Rules: br.Broker})
	if err != nil {
		t.Fatal(err)
	}
	br.Start(inbox)
	ws := httptest.NewServer(inbox.Handler())
	a := api.New(api.Config{Loopback: true, AgentKeys: []api.Key{{Name: "claude", Secret: agentKey}}, Logger: quiet}, br.Broker, br.Store)
	as := httptest.NewServer(a)
	t.Cleanup(func() {
		a.Drain()
		as.Close()
		inbox.Close()
		ws.Close()
	})
	t.Setenv("ASKBRIDGE_SERVER", as.URL)
	t.Setenv("ASKBRIDGE_KEY", agentKey)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := fake.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return &testBridge{br: br, fake: fake, inbox: ws.URL + "/"}
}

// pending waits for the one open question of the hook's session.
func (b *testBridge) pending(t *testing.T) *broker.Question {
	t.Helper()
	var q *broker.Question
	within(t, "the hook's question", func() bool {
		qs, err := b.br.Store.List(context.Background(), broker.Filter{SessionID: "claude:" + session, Status: broker.StatusPending, Limit: 10})
		if err != nil || len(qs) != 1 {
			return false
		}
		q = qs[0]
		return true
	})
	return q
}

// posted waits for question id's message in Slack.
func (b *testBridge) posted(t *testing.T, id string) slackfake.Message {
	t.Helper()
	var m slackfake.Message
	within(t, "question "+id+" in Slack", func() bool {
		for _, x := range b.fake.Messages() {
			if x.Channel == devChat && x.ThreadTS == "" && strings.Contains(x.Text, id) {
				m = x
				return true
			}
		}
		return false
	})
	return m
}

// tap has Bo press the button of m whose text starts with label, over
// Socket Mode, and waits for the app's ack.
func (b *testBridge) tap(t *testing.T, m slackfake.Message, label string) {
	t.Helper()
	for _, btn := range m.Buttons() {
		if !strings.HasPrefix(btn.Text, label) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		id, err := b.fake.Send("interactive", slackfake.ClickButton(m, bo, btn))
		if err == nil {
			_, err = b.fake.WaitAck(ctx, id)
		}
		if err != nil {
			t.Fatalf("tap %q: %v", btn.Text, err)
		}
		return
	}
	t.Fatalf("the Slack message has no %q button: %+v", label, m.Buttons())
}

// hookRun is what one run of `bridge hook claude` printed.
type hookRun struct {
	out, errOut string
	err         error
}

// runHook runs `bridge hook claude` on event, as Claude Code does, and
// returns where its output arrives.
func runHook(event string) <-chan hookRun {
	done := make(chan hookRun, 1)
	go func() {
		cmd := hooks.NewCmd()
		// The bridge's main reads the exit code from the error; cobra
		// prints nothing of it.
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		var out, errOut bytes.Buffer
		cmd.SetArgs([]string{"claude", "--timeout", "10m"})
		cmd.SetIn(strings.NewReader(event))
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		err := cmd.Execute()
		if ee, ok := errors.AsType[*cmdline.ExitError](err); ok && ee.Code == cmdline.ExitOK {
			err = nil
		}
		done <- hookRun{out: out.String(), errOut: errOut.String(), err: err}
	}()
	return done
}

// allowed waits for the hook to print an allow.
func allowed(t *testing.T, run <-chan hookRun) {
	t.Helper()
	select {
	case r := <-run:
		if r.err != nil || !strings.Contains(r.out, `"behavior":"allow"`) {
			t.Fatalf("the hook printed %q (%v), stderr %q; want an allow", r.out, r.err, r.errOut)
		}
	case <-time.After(waitFor):
		t.Fatal("the hook did not end")
	}
}

// option returns the index of q's option whose label starts with label.
func option(t *testing.T, q *broker.Question, label string) int {
	t.Helper()
	for k, o := range q.Prompts[0].Options {
		if strings.HasPrefix(o.Label, label) {
			return k
		}
	}
	t.Fatalf("question %s has no %q option", q.ID, label)
	return -1
}

// shoot photographs url on every screen size once ready shows, and
// writes <name>-<size>.png to dir.
func shoot(t *testing.T, p context.Context, url, ready, dir, name string) {
	t.Helper()
	for _, s := range sizes {
		opts := []chromedp.EmulateViewportOption{}
		if s.phone {
			opts = append(opts, chromedp.EmulateMobile)
		}
		do(t, p, chromedp.EmulateViewport(s.width, s.height, opts...), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(ready)))
		c, cancel := context.WithTimeout(p, waitFor)
		shot, err := chromedp.Run(c, chromedp.CaptureScreenshot())
		cancel()
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		write(t, filepath.Join(dir, name+"-"+s.name+".png"), smaller(t, shot))
	}
}

// smaller encodes a PNG again at the best compression, and fails when
// it is still above maxPNG.
func smaller(t *testing.T, shot []byte) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if b.Len() > len(shot) {
		b.Reset()
		b.Write(shot)
	}
	if b.Len() > maxPNG {
		t.Fatalf("the picture weighs %d KB, more than %d KB", b.Len()>>10, maxPNG>>10)
	}
	return b.Bytes()
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d KB)", path, len(data)>>10)
}

func do(t *testing.T, p context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(p, waitFor)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// waitTrue waits until expr is true in the tab.
func waitTrue(t *testing.T, p context.Context, expr string) {
	t.Helper()
	c, cancel := context.WithTimeout(p, waitFor)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(waitFor))); err != nil {
		t.Fatalf("the page never made %s true: %v", expr, err)
	}
}

// within waits until ok, polling.
func within(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
