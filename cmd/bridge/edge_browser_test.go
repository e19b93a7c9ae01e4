package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/browsertest"
)

// driveByPage is another site's page that tries to answer the pending
// question ?id= and to plant a question on the bridge at ?bridge=, with
// every request a page may send without asking the bridge first: no-cors
// fetches with text/plain and form bodies that hold JSON, a body-less
// cancel, and forms posted into frames. It also tries a JSON fetch, which
// needs a CORS preflight. window.done settles when every attempt has.
const driveByPage = `<!doctype html>
<meta charset="utf-8"><title>free recipes</title>
<body>
<script>
const p = new URLSearchParams(location.search);
const base = p.get('bridge'), id = p.get('id');
const answer = JSON.stringify({text: '/answer ' + id + ' 1'});
const plant = JSON.stringify({question: 'Planted by a web page?', wait: '0s'});
const shots = [
  ['/v1/commands', 'text/plain', answer],
  ['/v1/commands', 'application/x-www-form-urlencoded', answer],
  ['/v1/questions', 'text/plain', plant],
  ['/v1/questions', 'application/x-www-form-urlencoded', plant],
  ['/inbox/command', 'text/plain', answer],
  ['/inbox/command', 'application/x-www-form-urlencoded', answer],
  ['/v1/questions/' + id + '/cancel', null, null],
];
const sent = shots.map(([path, type, body]) =>
  fetch(base + path, {mode: 'no-cors', method: 'POST', headers: type ? {'Content-Type': type} : {}, body})
    .then(() => 'sent ' + path, e => 'failed ' + path + ': ' + e));
const cors = fetch(base + '/v1/commands', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: answer})
  .then(r => 'read ' + r.status, () => 'preflight refused');
// A form whose text/plain body is JSON: name + "=" + value.
function form(path, name, value) {
  return new Promise(resolve => {
    const frame = document.createElement('iframe');
    frame.name = 'f' + Math.random().toString(36).slice(2);
    frame.onload = () => resolve('posted ' + path);
    document.body.appendChild(frame);
    const f = document.createElement('form');
    f.method = 'POST'; f.enctype = 'text/plain'; f.action = base + path; f.target = frame.name;
    const i = document.createElement('input');
    i.type = 'hidden'; i.name = name; i.value = value;
    f.appendChild(i); document.body.appendChild(f); f.submit();
  });
}
const forms = [
  form('/v1/commands', '{"text":"/answer ' + id + ' 1","user":"', '"}'),
  form('/v1/questions', '{"question":"Planted by a form?","wait":"0s","context":"', '"}'),
];
window.done = Promise.all([...sent, cors, ...forms]);
</script>`

// TestDriveByPageCannotTouchBridge is the attack on a default, keyless
// loopback bridge from a page open in the same person's browser: the
// page's requests reach the bridge and are all refused; the question stays
// pending and nothing is planted.
func TestDriveByPageCannotTouchBridge(t *testing.T) {
	b := startEdgeBridge(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agent := client.New(b.url, "")
	id, err := agent.AskAsync(ctx, client.Question{Question: "Deploy to production?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}})
	if err != nil {
		t.Fatal(err)
	}
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, driveByPage)
	}))
	defer attacker.Close()
	_, attackPort, _ := strings.Cut(strings.TrimPrefix(attacker.URL, "http://"), ":")
	browser := browsertest.New(t)

	tests := []struct{ name, page, bridge string }{
		{"page on another loopback port", attacker.URL, b.url},
		{"page on localhost, bridge on 127.0.0.1", "http://localhost:" + attackPort, b.url},
		{"page on localhost, bridge on localhost", "http://localhost:" + attackPort, "http://localhost:" + b.port},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b.taken() // the agent's own requests so far
			tab, closeTab := chromedp.NewContext(browser)
			defer closeTab()
			tctx, cancel := context.WithTimeout(tab, 30*time.Second)
			defer cancel()
			page := tt.page + "/?" + url.Values{"bridge": {tt.bridge}, "id": {id}}.Encode()
			if err := chromedp.Do(tctx, chromedp.Navigate(page)); err != nil {
				t.Fatal(err)
			}
			outcomes, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`window.done`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("the page's attempts: %v", err)
			}
			t.Logf("the page saw: %q", outcomes)
			for _, o := range outcomes {
				if strings.HasPrefix(o, "read ") || strings.HasPrefix(o, "failed ") {
					t.Errorf("page outcome %q: the bridge answered it readably, or the browser never sent it", o)
				}
			}

			// Every attempt reached the bridge and was refused.
			posts := map[string]int{}
			for _, h := range b.taken() {
				if h.method == http.MethodOptions {
					continue // the preflight of the JSON fetch, which the bridge does not grant
				}
				posts[h.path]++
				if h.status != http.StatusForbidden {
					t.Errorf("%s %s answered %d, want 403", h.method, h.path, h.status)
				}
			}
			want := map[string]int{"/v1/commands": 3, "/v1/questions": 3, "/inbox/command": 2, "/v1/questions/" + id + "/cancel": 1}
			for path, n := range want {
				if posts[path] != n {
					t.Errorf("the bridge got %d posts to %s, want %d (all: %v)", posts[path], path, n, posts)
				}
			}
			assertUntouched(t, ctx, agent, id)
		})
	}
}

// TestRebindingCannotReadOrAnswer is DNS rebinding: a hostile name that
// resolves to 127.0.0.1 makes the bridge the page's own origin, so the
// page could read and post freely; the Host it sends is refused.
func TestRebindingCannotReadOrAnswer(t *testing.T) {
	b := startEdgeBridge(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agent := client.New(b.url, "")
	id, err := agent.AskAsync(ctx, client.Question{Question: "Deploy to production?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}})
	if err != nil {
		t.Fatal(err)
	}
	answer := fmt.Sprintf(`{"text":"/answer %s 1"}`, id)
	const refusal = `Host \"evil.example:%s\" is not one this bridge answers to; add it to server.allowed_hosts or set server.public_url`

	t.Run("http client", func(t *testing.T) {
		for _, r := range []struct{ method, path, body string }{
			{"GET", "/inbox/state", ""},
			{"POST", "/inbox/command", answer},
			{"POST", "/v1/commands", answer},
			{"GET", "/v1/questions", ""},
		} {
			req, _ := http.NewRequestWithContext(ctx, r.method, b.url+r.path, strings.NewReader(r.body))
			req.Host = "evil.example:" + b.port
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error struct{ Code, Message string }
			}
			_ = json.Unmarshal(body, &e)
			if resp.StatusCode != http.StatusMisdirectedRequest || e.Error.Code != "unknown_host" ||
				e.Error.Message != strings.ReplaceAll(fmt.Sprintf(refusal, b.port), `\"`, `"`) {
				t.Errorf("%s %s with Host evil.example: %d %s", r.method, r.path, resp.StatusCode, body)
			}
		}
	})

	t.Run("browser", func(t *testing.T) {
		browser := browsertest.New(t, chromedp.Flag("host-resolver-rules", "MAP evil.example 127.0.0.1"))
		tctx, cancel := context.WithTimeout(browser, 30*time.Second)
		defer cancel()
		// The page's origin is now evil.example on the bridge's port: what
		// a rebinding page has once its name points at 127.0.0.1.
		if err := chromedp.Do(tctx, chromedp.Navigate("http://evil.example:"+b.port+"/")); err != nil {
			t.Fatal(err)
		}
		shown, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(shown, fmt.Sprintf(refusal, b.port)) {
			t.Errorf("the page at evil.example shows %q, want the refusal", shown)
		}
		got, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](fmt.Sprintf(`Promise.all([
			fetch('/inbox/state').then(r => r.status + ' ' + r.statusText),
			fetch('/inbox/command', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: %q}).then(r => r.status + ' ' + r.statusText),
		])`, answer), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			if !strings.HasPrefix(s, "421") {
				t.Errorf("same-origin fetch from the rebound page: %s, want 421", s)
			}
		}
	})
	assertUntouched(t, ctx, agent, id)
}

// assertUntouched checks the question is still pending and the agent has
// no other question.
func assertUntouched(t *testing.T, ctx context.Context, agent *client.Client, id string) {
	t.Helper()
	q, err := agent.Get(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Status != client.StatusPending {
		t.Errorf("question %s is %s (answered by %+v), want pending", id, q.Status, q.AnsweredBy)
	}
	all, err := agent.List(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.ID != id {
			t.Errorf("a question was planted: %s %s %+v", r.ID, r.Status, r.Questions)
		}
	}
}

// TestInboxPageWorksBehindGuard is the other side: the inbox's own page,
// opened under each loopback name, still answers through the guard.
func TestInboxPageWorksBehindGuard(t *testing.T) {
	b := startEdgeBridge(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agent := client.New(b.url, "")
	browser := browsertest.New(t)
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			id, err := agent.AskAsync(ctx, client.Question{Question: "Deploy to production?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}})
			if err != nil {
				t.Fatal(err)
			}
			tab, closeTab := chromedp.NewContext(browser)
			defer closeTab()
			tctx, cancel := context.WithTimeout(tab, 30*time.Second)
			defer cancel()
			// Pick the second option of the one prompt, then Submit.
			option := fmt.Sprintf("#q-%s-0-1", id)
			submit := fmt.Sprintf("#q-%s button.submit", id)
			err = chromedp.Do(tctx, chromedp.Navigate("http://"+host+":"+b.port+"/"),
				chromedp.Click(chromedp.CSS(option), chromedp.NodeVisible),
				chromedp.Click(chromedp.CSS(submit), chromedp.NodeVisible))
			if err != nil {
				t.Fatalf("inbox at %s: %v", host, err)
			}
			q, err := agent.Get(ctx, id, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if q.Status != client.StatusAnswered || q.AnsweredBy == nil || q.AnsweredBy.Channel != "web" {
				t.Fatalf("question is %s, answered by %+v; want answered on the web inbox", q.Status, q.AnsweredBy)
			}
		})
	}
}
