package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/web"
	"github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/sqlite"
)

// InboxConfig is a run of ScaleInbox.
type InboxConfig struct {
	// Store is "sqlite" or "redis" (a private redis-server).
	Store string
	// Stored is how many questions the store holds, Open how many of
	// them are pending; the rest are resolved. All have a copy in the
	// web inbox, created over the last seven days (the default
	// retention), the open ones spread among them.
	Stored, Open int
	// Reads is how many times each page is read.
	Reads int
	// Workers write the questions on Redis.
	Workers int
}

// InboxResult is what ScaleInbox measured.
type InboxResult struct {
	Store     string        `json:"store"`
	Stored    int           `json:"stored"`
	Open      int           `json:"open"`
	Fill      time.Duration `json:"fill_ns"`
	FillRate  float64       `json:"stored_per_s"`
	OpenShown int           `json:"open_shown"`
	History   int           `json:"history_shown"`
	// StateBytes is the size of the first page's answer.
	StateBytes int `json:"state_bytes"`
	// First is GET /inbox/state; Next the page after the cursor of the
	// middle open question shown (?before=).
	First Summary `json:"first_page"`
	Next  Summary `json:"next_page"`
}

// ScaleInbox fills a store with cfg.Stored questions and measures GET
// /inbox/state, the first page and a next page, through the web inbox's
// handler over HTTP on a bridge's broker. SQLite is filled by inserting
// rows in transactions of 50,000 (the schema's triggers index them as
// Create would), Redis through the store (Create, and Resolve for the
// resolved ones) from cfg.Workers goroutines, pipelined.
func ScaleInbox(ctx context.Context, cfg InboxConfig, progress func(string)) (*InboxResult, error) {
	if cfg.Stored < 1 || cfg.Open < 0 || cfg.Open > cfg.Stored || cfg.Reads < 1 {
		return nil, fmt.Errorf("scale inbox: --stored must be positive, --open from 0 to --stored, --reads positive")
	}
	dir, err := os.MkdirTemp("", "askbench-inbox-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer removeAll(dir)
	now := time.Now().UTC().Truncate(time.Millisecond)
	res := &InboxResult{Store: cfg.Store, Stored: cfg.Stored, Open: cfg.Open}
	var st broker.Store
	t0 := time.Now()
	switch cfg.Store {
	case "sqlite":
		path := filepath.Join(dir, "inbox.db")
		if err := fillSQLite(ctx, path, cfg, now, progress); err != nil {
			return nil, err
		}
		res.Fill = time.Since(t0)
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		st = s
	case "redis":
		rs, err := StartRedis(ctx, dir, false)
		if err != nil {
			return nil, err
		}
		defer rs.Kill()
		s, err := redis.OpenURL(ctx, rs.URL(), quiet)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		st = s
		if err := fillThrough(ctx, s, cfg, now, progress); err != nil {
			_ = s.Close()
			return nil, err
		}
		res.Fill = time.Since(t0)
	default:
		return nil, fmt.Errorf("scale inbox: --store must be sqlite or redis, not %q", cfg.Store)
	}
	defer st.Close()
	res.FillRate = float64(cfg.Stored) / res.Fill.Seconds()
	progress(fmt.Sprintf("%d questions stored in %s", cfg.Stored, FormatDuration(res.Fill)))
	if err := readInbox(ctx, st, cfg.Reads, res); err != nil {
		return nil, err
	}
	return res, nil
}

// inboxQuestion is question i of n: created over the seven days before
// now, open when it is one of every n/open, the others answered a minute
// after they were asked.
func inboxQuestion(i, n, open int, now time.Time) *broker.Question {
	span := 7 * 24 * time.Hour
	created := now.Add(-span + time.Duration(int64(span)/int64(n)*int64(i)))
	q := benchQuestion("inbox", "", created)
	q.ID = "ib" + strconv.FormatInt(int64(i), 36) + broker.NewID()
	q.Targets, q.Reminders = []broker.Target{{Channel: web.Name}}, nil
	q.ExpiresAt = created.Add(30 * time.Minute)
	if open > 0 && i%(n/open) == n/open-1 && i/(n/open) < open {
		q.ExpiresAt = now.Add(time.Hour)
		return q
	}
	q.Status, q.ResolvedAt = broker.StatusAnswered, created.Add(time.Minute)
	q.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	q.AnsweredBy = &broker.Responder{Channel: web.Name, User: "ana", Name: "Ana"}
	return q
}

// readInbox serves the web inbox of a broker on st over HTTP on a
// loopback port and reads its pages.
func readInbox(ctx context.Context, st broker.Store, reads int, res *InboxResult) error {
	b, err := broker.New(broker.Config{Store: st, Logger: quiet})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer b.Close()
	ch, err := web.New(web.Config{}, b, web.Options{Logger: quiet, Location: time.UTC, Lister: b, Loopback: true,
		Copies: b, Rules: b, Conversations: b})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer ch.Close()
	b.Register(ch) // the inbox's copies are in-process, as in a bridge
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	srv := &http.Server{Handler: ch.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String() + "/inbox/state"
	c := &http.Client{Timeout: time.Minute}

	type page struct {
		Open []struct {
			ID        string    `json:"id"`
			CreatedAt time.Time `json:"created_at"`
		} `json:"open"`
		History []json.RawMessage `json:"history"`
	}
	get := func(u string) (page, int, time.Duration, error) {
		t0 := time.Now()
		resp, err := c.Get(u)
		if err != nil {
			return page{}, 0, 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		if err != nil {
			return page{}, 0, 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return page{}, 0, 0, fmt.Errorf("GET %s: %s %s", u, resp.Status, body)
		}
		var p page
		err = json.Unmarshal(body, &p)
		return p, len(body), took, err
	}
	first, size, _, err := get(base) // warms the caches
	if err != nil {
		return err
	}
	res.OpenShown, res.History, res.StateBytes = len(first.Open), len(first.History), size
	if len(first.Open) < 2 {
		return errors.New("scale inbox: the first page shows fewer than 2 open questions: ask for --open 2 or more")
	}
	mid := first.Open[len(first.Open)/2-1]
	next := base + "?before=" + url.QueryEscape(strconv.FormatInt(mid.CreatedAt.UnixMilli(), 10)+"."+mid.ID)
	var fl, nl []time.Duration
	for range reads {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, _, d, err := get(base)
		if err != nil {
			return err
		}
		fl = append(fl, d)
		_, _, d, err = get(next)
		if err != nil {
			return err
		}
		nl = append(nl, d)
	}
	res.First, res.Next = Summarize(fl), Summarize(nl)
	return nil
}
