package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/askbridge/askbridge/bench"
)

func runScale(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{fmt.Errorf("scale: name a run: pending, waiters, sweep or inbox")}
	}
	fs := flag.NewFlagSet("scale "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	workers := fs.Int("workers", 32, "concurrent writers while filling the store")
	progress := func(n int) { fmt.Fprintf(stderr, "  %d stored\n", n) }
	var out any
	var rows [][2]string
	switch args[0] {
	case "pending":
		n := fs.Int("count", 200000, "pending questions to store")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		r, err := bench.ScalePending(ctx, *n, *workers, progress)
		if err != nil {
			return err
		}
		out = r
		rows = [][2]string{
			{"pending questions", fmt.Sprint(r.Questions)},
			{"stored at", fmt.Sprintf("%.0f/s", r.PerSecond)},
			{"used_memory growth", bench.FormatBytes(float64(r.MemoryDelta))},
			{"per question", fmt.Sprintf("%.0f B (%s)", r.PerQuestion, bench.FormatBytes(r.PerQuestion))},
			{"for 1,000,000", bench.FormatBytes(float64(r.Extrapolated1M))},
		}
	case "waiters":
		var ef envFlags
		ef.register(fs)
		n := fs.Int("count", 10000, "agents blocked at once")
		h2c := fs.Bool("h2c", false, "hold the long-polls as HTTP/2 cleartext streams over shared connections instead of one HTTP/1.1 connection each")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		ec, err := ef.config()
		if err != nil {
			return err
		}
		ec.Instances, ec.Servers, ec.Capacity = 1, nil, true
		limit, err := bench.RaiseOpenFiles()
		if err != nil {
			return err
		}
		if uint64(*n)+256 > limit {
			return fmt.Errorf("scale waiters: %d waiters need more open files than the limit of %d (raise ulimit -Hn)", *n, limit)
		}
		env, err := bench.StartEnv(ctx, ec)
		if err != nil {
			return err
		}
		defer env.Close()
		r, err := bench.ScaleWaiters(ctx, env, *n, *h2c, func(s string) { fmt.Fprintln(stderr, "  "+s) })
		if err != nil {
			return err
		}
		out = r
		rows = [][2]string{
			{"config", env.Config},
			{"waiters blocked", fmt.Sprintf("%d (%s)", r.Waiters, waitersProto(r.H2C))},
			{"bridge rss", fmt.Sprintf("%s → %s", bench.FormatBytes(float64(r.RSSBefore)), bench.FormatBytes(float64(r.RSSWith)))},
			{"per waiter", fmt.Sprintf("%.0f B (%s)", r.PerWaiter, bench.FormatBytes(r.PerWaiter))},
			{"of which", fmt.Sprintf("goroutine stacks %s, heap in use %s", bench.FormatBytes(r.StackPerWaiter), bench.FormatBytes(r.HeapPerWaiter))},
			{"goroutines", fmt.Sprintf("%d → %d (%.2f per waiter)", r.GoroutinesBefore, r.GoroutinesWith, r.GoroutinesPerWaiter)},
			{"answered and released", fmt.Sprint(r.Released)},
			{"run time", bench.FormatDuration(r.Elapsed)},
		}
	case "sweep":
		var ef envFlags
		ef.register(fs)
		n := fs.Int("count", 100000, "questions that time out in the same second")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		ec, err := ef.config()
		if err != nil {
			return err
		}
		ec.Instances, ec.Servers, ec.NoBridge = 1, nil, true // the sweep runs in-process
		env, err := bench.StartEnv(ctx, ec)
		if err != nil {
			return err
		}
		defer env.Close()
		r, err := bench.ScaleSweep(ctx, env, *n, *workers, progress)
		if err != nil {
			return err
		}
		out = r
		rows = [][2]string{
			{"store", r.Store},
			{"questions due in one second", fmt.Sprint(r.Questions)},
			{"sweep", fmt.Sprintf("%s, %.0f resolutions/s", bench.FormatDuration(r.Elapsed), r.PerSecond)},
			{"timed out", fmt.Sprint(r.TimedOut)},
			{"resolved twice", fmt.Sprint(r.Twice)},
			{"left pending", fmt.Sprint(r.Pending)},
			{"copies edited", fmt.Sprint(r.Updated)},
		}
		if r.Twice > 0 || r.Pending > 0 || r.TimedOut != r.Questions || r.Updated != r.Questions {
			defer func() {
				fmt.Fprintln(stderr, "askbench: FAIL: not every question timed out exactly once with its copy edited")
			}()
		}
	case "inbox":
		store := fs.String("store", "sqlite", "the store: sqlite or redis (a private redis-server)")
		stored := fs.Int("stored", 1000000, "questions in the store, with a copy in the web inbox")
		open := fs.Int("open", 100, "of them pending; the rest resolved")
		reads := fs.Int("reads", 200, "reads of each page")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		switch {
		case *store != "sqlite" && *store != "redis":
			return usageError{fmt.Errorf("scale inbox: --store %q: use sqlite or redis", *store)}
		case *stored < 1 || *open < 0 || *open > *stored || *reads < 1:
			return usageError{fmt.Errorf("scale inbox: --stored must be positive, --open from 0 to --stored, --reads positive")}
		}
		r, err := bench.ScaleInbox(ctx, bench.InboxConfig{Store: *store, Stored: *stored, Open: *open, Reads: *reads, Workers: *workers},
			func(s string) { fmt.Fprintln(stderr, "  "+s) })
		if err != nil {
			return err
		}
		out = r
		page := func(s bench.Summary) string {
			return fmt.Sprintf("p50 %s, p99 %s, max %s (%d reads)", bench.FormatDuration(s.P50), bench.FormatDuration(s.P99), bench.FormatDuration(s.Max), s.Count)
		}
		rows = [][2]string{
			{"store", r.Store},
			{"stored questions", fmt.Sprintf("%d (%d open)", r.Stored, r.Open)},
			{"filled in", fmt.Sprintf("%s, %.0f/s", bench.FormatDuration(r.Fill), r.FillRate)},
			{"first page shows", fmt.Sprintf("%d open, %d resolved, %s", r.OpenShown, r.History, bench.FormatBytes(float64(r.StateBytes)))},
			{"GET /inbox/state", page(r.First)},
			{"GET /inbox/state?before=", page(r.Next)},
		}
	default:
		return usageError{fmt.Errorf("scale: unknown run %q (pending, waiters, sweep or inbox)", args[0])}
	}
	if *asJSON {
		return bench.WriteJSON(stdout, out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}

func waitersProto(h2c bool) string {
	if h2c {
		return "HTTP/2 cleartext streams over shared connections"
	}
	return "one HTTP/1.1 connection each"
}
