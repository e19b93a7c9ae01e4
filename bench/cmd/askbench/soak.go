package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/askbridge/askbridge/bench"
)

// runSoak drives a steady rate of cycles for a long while and compares
// the last window with the first.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef envFlags
	ef.register(fs)
	cfg := bench.SoakConfig{}
	fs.IntVar(&cfg.Load.Agents, "agents", 100, "concurrent agents (enough to hold the rate)")
	fs.DurationVar(&cfg.Load.Duration, "duration", 10*time.Minute, "start no cycle after this long")
	fs.Float64Var(&cfg.Load.Rate, "rate", 200, "cycles started per second")
	fs.StringVar(&cfg.Load.Mode, "mode", bench.ModePending, "blocking or pending")
	fs.DurationVar(&cfg.Load.Think, "think", 0, "responder think time before answering")
	fs.StringVar(&cfg.Load.Client, "client", bench.ClientRaw, "the agents' HTTP client: raw (plain HTTP/1.1, light on the tool's CPU) or net/http")
	fs.DurationVar(&cfg.Interval, "interval", time.Minute, "length of a measured window")
	fs.Float64Var(&cfg.Tolerance, "tolerance", 0.10, "how far the last window may stray from the first (fraction)")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Minute, "windows ending within this are printed but not compared (the SQLite page cache fills during the first two minutes)")
	asJSON := fs.Bool("json", false, "print JSON instead of lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := cfg.Check(); err != nil {
		return usageError{err}
	}
	if cfg.Load.Mode != bench.ModeBlocking && cfg.Load.Mode != bench.ModePending {
		return usageError{fmt.Errorf("--mode %q: use %s or %s", cfg.Load.Mode, bench.ModeBlocking, bench.ModePending)}
	}
	env, err := ef.start(ctx)
	if err != nil {
		return err
	}
	defer env.Close()
	progress := func(w bench.SoakWindow) { fmt.Fprintln(stdout, w.WindowLine(env.Redis != nil)) }
	if *asJSON {
		progress = func(w bench.SoakWindow) { fmt.Fprintln(stderr, w.WindowLine(env.Redis != nil)) }
	}
	rep, err := bench.RunSoak(ctx, env, cfg, progress)
	if err != nil {
		return err
	}
	if *asJSON {
		err = bench.WriteJSON(stdout, rep)
	} else {
		err = rep.WriteText(stdout)
	}
	if err == nil && !rep.Pass {
		err = fmt.Errorf("soak: the last window strayed more than %.0f %% from the first", 100*cfg.Tolerance)
	}
	return err
}
