package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/chromedp/chromedp"
)

// fill stores n pending questions posted to the web inbox straight into
// the store, as if asked over a while: question i was created i
// milliseconds before now, and every tenth shares its time with the one
// before, so that the order also rests on the id. It returns the ids
// newest first, as the inbox orders them.
func (e *env) fill(t testing.TB, n int, now time.Time) []string {
	t.Helper()
	qs := make([]*broker.Question, n)
	for i := range qs {
		at := now.Add(-time.Duration(i) * time.Millisecond)
		if i%10 == 9 {
			at = qs[i-1].CreatedAt
		}
		qs[i] = brokertest.NewQuestion(broker.NewID(), "agent", at)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	errs := make(chan error, n)
	for _, q := range qs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx := context.Background()
			if _, _, err := e.st.Create(ctx, q, nil); err != nil {
				errs <- err
				return
			}
			errs <- e.st.AddMessage(ctx, q.ID, broker.MessageRef{Channel: Name, MessageID: q.ID, PostedAt: q.CreatedAt})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Newest first; among equal times the greater id first.
	ids := make([]string, n)
	for i, q := range qs {
		ids[i] = q.ID
		if i%10 == 9 && q.ID > qs[i-1].ID {
			ids[i], ids[i-1] = ids[i-1], q.ID
		}
	}
	return ids
}

// readState reads /inbox/state (with ?before=cursor when not empty) and
// returns it with the size of its body.
func readState(t testing.TB, e *env, cursor string) (state, int) {
	t.Helper()
	u := e.url + "inbox/state"
	if cursor != "" {
		u += "?before=" + url.QueryEscape(cursor)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s", u, resp.Status, body)
	}
	var st state
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return st, len(body)
}

func viewIDs(vs []view) []string {
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	return ids
}

// TestStatePages reads the open questions page by page with the cursor
// each page gives, while questions arrive and resolve between the reads:
// every question open throughout shows exactly once, in order.
func TestStatePages(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	now := time.Now().UTC().Truncate(time.Millisecond)
	ids := e.fill(t, 250, now)

	first, _ := readState(t, e, "")
	if got := viewIDs(first.Open); fmt.Sprint(got) != fmt.Sprint(ids[:100]) {
		t.Fatalf("first page = %v\nwant the newest 100 = %v", got, ids[:100])
	}
	if first.OpenMore != 150 || first.OpenCursor == "" || first.OpenMoreCapped {
		t.Fatalf("first page: open_more %d, cursor %q, capped %v; want 150 more and a cursor", first.OpenMore, first.OpenCursor, first.OpenMoreCapped)
	}

	// Between two reads: newer questions arrive, one on the next page is
	// answered.
	e.fill(t, 5, now.Add(time.Second))
	gone := ids[120]
	if _, err := e.b.Resolve(context.Background(), gone, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
		t.Fatal(err)
	}
	second, _ := readState(t, e, first.OpenCursor)
	var want []string
	for _, id := range ids[100:201] {
		if id != gone {
			want = append(want, id)
		}
	}
	if got := viewIDs(second.Open); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("second page = %v\nwant = %v", got, want)
	}
	if second.OpenMore != 49 || len(second.History) != 0 {
		t.Fatalf("second page: open_more %d, %d history entries; want 49 and none", second.OpenMore, len(second.History))
	}
	third, _ := readState(t, e, second.OpenCursor)
	if got := viewIDs(third.Open); fmt.Sprint(got) != fmt.Sprint(ids[201:]) || third.OpenMore != 0 || third.OpenCursor != "" {
		t.Fatalf("third page = %v (more %d, cursor %q)\nwant = %v and nothing more", got, third.OpenMore, third.OpenCursor, ids[201:])
	}

	for _, bad := range []string{"yesterday", "12.", ".abc", "-5.abc"} {
		resp, err := http.Get(e.url + "inbox/state?before=" + url.QueryEscape(bad))
		if err != nil {
			t.Fatal(err)
		}
		var r reply
		_ = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || r.Reply == "" {
			t.Errorf("before=%q: %s %q, want 400 with a reply", bad, resp.Status, r.Reply)
		}
	}
}

// TestStateSizeBounded: with 3000 open questions /inbox/state carries the
// newest 100 and a count of the rest, so its size is that of one page.
func TestStateSizeBounded(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	now := time.Now().UTC().Truncate(time.Millisecond)
	one := e.fill(t, 1, now.Add(time.Hour))
	_, single := readState(t, e, "")
	ids := e.fill(t, 2999, now)

	start := time.Now()
	st, size := readState(t, e, "")
	took := time.Since(start)
	if len(st.Open) != openPage || st.OpenMore != 2900 || st.Open[0].ID != one[0] || st.Open[1].ID != ids[0] {
		t.Fatalf("state with 3000 open: %d shown (first %s), %d more; want the newest 100 and 2900 more", len(st.Open), st.Open[0].ID, st.OpenMore)
	}
	// The page is 100 views: its size is bound by a hundred times that
	// of the state with one question.
	if limit := openPage * single; size > limit {
		t.Fatalf("state with 3000 open questions is %d bytes, want at most %d (100 views of %d bytes)", size, limit, single)
	}
	t.Logf("state with 3000 open questions: %d bytes, read in %v", size, took)
}

// openCards counts the open questions the page shows.
const openCards = `document.querySelectorAll('#open > li').length`

// waitCount waits until the page shows n open questions.
func waitCount(t *testing.T, page context.Context, n int) {
	t.Helper()
	c, cancel := context.WithTimeout(page, waitFor)
	defer cancel()
	expr := fmt.Sprintf(`%s === %d`, openCards, n)
	if _, err := chromedp.Run(c, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitFor))); err != nil {
		t.Fatalf("page shows %d open questions, want %d (err %v)", eval[int](t, page, openCards), n, err)
	}
}

// testPaging opens the inbox on 130 open questions: it shows the newest
// 100 and "30 more"; the button shows the rest. A new question appears
// live on top, and a refresh after an answer keeps the pages opened.
func testPaging(t *testing.T, browser context.Context) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	now := time.Now().UTC().Truncate(time.Millisecond).Add(-time.Minute)
	ids := e.fill(t, 130, now)
	page := tab(t, browser, false)
	open(t, page, e.url)
	waitText(t, page, "#open-count", "(130)")
	waitCount(t, page, 100)
	waitText(t, page, "#open-more", "30 more")
	if first := eval[string](t, page, `document.querySelector('#open > li').dataset.id`); first != ids[0] {
		t.Errorf("the first card is %s, want the newest question %s", first, ids[0])
	}
	if eval[bool](t, page, fmt.Sprintf(`!!document.querySelector(%q)`, card(ids[100]))) {
		t.Errorf("question %s (the 101st) shows before asking for more", ids[100])
	}

	click(t, page, "#open-more")
	waitCount(t, page, 130)
	waitText(t, page, card(ids[129])+" .prompt-text", "Which database?")
	if !eval[bool](t, page, `document.getElementById('open-more').hidden`) {
		t.Error("the more button still shows after the last page")
	}

	q := e.ask(t, &broker.AskRequest{Question: "Deploy the hotfix?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	waitText(t, page, card(q.ID)+" .prompt-text", "Deploy the hotfix?")
	waitText(t, page, "#open-count", "(131)")

	// Answering the oldest question reloads the state: both pages stay.
	pick(t, page, ids[129], 0, 0)
	waitText(t, page, "#notice", "Recorded: Postgres")
	waitGone(t, page, card(ids[129]))
	waitCount(t, page, 130)
	waitText(t, page, "#open-count", "(130)")
}
