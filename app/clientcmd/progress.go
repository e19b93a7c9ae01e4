package clientcmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// While `bridge ask` waits on a terminal, the person who ran it sees
// which question it asked, where it was posted, the web inbox's link,
// and how long it has waited: two lines once the bridge has the
// question, and a status line rewritten each second. Nothing of it goes
// to a pipe or a file: there, standard error keeps only what went wrong
// and the bridge's warnings ("warning: nobody is watching the web inbox;
// …"), which askAndWait prints at once on a terminal or not.

// progressEvery is how often the status line is rewritten; the copies'
// states are read again every progressRead.
const (
	progressEvery = time.Second
	progressRead  = 5 * time.Second
)

// progress is the display of one ask on the terminal w.
type progress struct {
	w     io.Writer
	term  cmdline.Terminal
	c     *client.Client
	q     client.Question
	start time.Time

	mu     sync.Mutex // held while writing to w
	status bool       // a status line is on screen
}

// showProgress starts the display; stop ends it and clears the status
// line. It wraps c.OnRetry and c.OnWarnings so that their lines do not
// land on the status line.
func showProgress(w io.Writer, term cmdline.Terminal, c *client.Client, q client.Question) (stop func()) {
	p := &progress{w: w, term: term, c: c, q: q, start: time.Now()}
	if retry := c.OnRetry; retry != nil {
		c.OnRetry = func(r client.RetryInfo) {
			p.mu.Lock()
			p.clearLocked()
			p.mu.Unlock()
			retry(r)
		}
	}
	if warn := c.OnWarnings; warn != nil {
		c.OnWarnings = func(r client.Result) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.clearLocked()
			warn(r)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx)
	}()
	return func() {
		cancel()
		<-done
		p.mu.Lock()
		p.clearLocked()
		p.mu.Unlock()
	}
}

// run rewrites the status line until ctx ends, looking the question up
// (by its session and tool-call id) until the bridge has it.
func (p *progress) run(ctx context.Context) {
	var (
		found  *client.Result
		copies []client.Copy
		read   time.Time
	)
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		if found == nil || time.Since(read) >= progressRead {
			read = time.Now()
			if r := p.lookup(ctx); r != nil {
				if found == nil {
					copies = p.copies(ctx, r.ID)
					p.announce(r, copies)
				} else if time.Since(p.start) > progressRead {
					copies = p.copies(ctx, r.ID)
				}
				found = r
			}
		}
		p.line(found, copies)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// lookup returns the pending question of this ask, or nil while the
// bridge has none (not asked yet, or already ended).
func (p *progress) lookup(ctx context.Context) *client.Result {
	ctx, cancel := context.WithTimeout(ctx, progressRead)
	defer cancel()
	qs, err := p.c.List(ctx, p.q.SessionID, client.StatusPending)
	if err != nil {
		return nil
	}
	for i := range qs {
		if qs[i].ToolCallID == p.q.ToolCallID {
			return &qs[i]
		}
	}
	return nil
}

func (p *progress) copies(ctx context.Context, id string) []client.Copy {
	ctx, cancel := context.WithTimeout(ctx, progressRead)
	defer cancel()
	cs, _ := p.c.Copies(ctx, id)
	return cs
}

// announce writes the question's id and route, and the web inbox's link
// when a copy is there.
func (p *progress) announce(r *client.Result, copies []client.Copy) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	route := r.Route
	if route == "" {
		route = "default"
	}
	fmt.Fprintf(p.w, "Asked question %s on route %s\n", p.term.Paint("1", r.ID), cmdline.Printable(route, false))
	for _, c := range copies {
		if c.Target.Channel == "web" {
			fmt.Fprintf(p.w, "Answer it in the web inbox: %s\n", p.term.Paint("4", p.c.Server()+"/#q-"+r.ID))
			break
		}
	}
}

// line rewrites the status line: the time waited, where the question
// was posted, its deadline.
func (p *progress) line(r *client.Result, copies []client.Copy) {
	// Each part in plain text, to measure, and painted, to show.
	type part struct{ plain, painted string }
	wait := "waiting " + elapsed(time.Since(p.start))
	parts := []part{{wait, p.term.Paint("2", wait)}}
	if r != nil {
		var plain, painted []string
		for _, c := range copies {
			where := cmdline.Printable(targetText(c.Target), false) + ": "
			plain = append(plain, where+c.State)
			painted = append(painted, where+p.term.Paint(stateColor(c.State), c.State))
		}
		if len(plain) > 0 {
			parts = append(parts, part{strings.Join(plain, ", "), strings.Join(painted, ", ")})
		}
		exp := "expires " + r.ExpiresAt.Local().Format("15:04")
		parts = append(parts, part{exp, exp})
	}
	// A line longer than the terminal would wrap, and the next rewrite
	// would leave its first half behind: parts are dropped from the
	// middle until it fits, the time waited last of all.
	for len(parts) > 1 && p.term.Width > 0 {
		n := 0
		for _, pt := range parts {
			n += utf8.RuneCountInString(pt.plain) + 3
		}
		if n-3 < p.term.Width {
			break
		}
		parts = append(parts[:1], parts[2:]...)
	}
	shown := make([]string, len(parts))
	for i, pt := range parts {
		shown[i] = pt.painted
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K"+strings.Join(shown, " · "))
	p.status = true
}

// clearLocked wipes the status line; p.mu is held.
func (p *progress) clearLocked() {
	if p.status {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.status = false
	}
}

// stateColor is the SGR colour of a copy's state: green posted, red
// failed, yellow on the way.
func stateColor(state string) string {
	switch state {
	case "posted":
		return "32"
	case "failed", "not posted":
		return "31"
	}
	return "33"
}

// elapsed is d as a clock: "0:42", "12:05", "1:02:09".
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
