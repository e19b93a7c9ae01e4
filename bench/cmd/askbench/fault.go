package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/askbridge/askbridge/bench"
)

// runNames lists the fault runs.
const runNames = "kill9, redis-restart, platform-cut, platform-429, post-outage, restart-in-outage, client-hangup or burst"

func runFault(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{fmt.Errorf("fault: name a run: %s", runNames)}
	}
	name := args[0]
	fs := flag.NewFlagSet("fault "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := bench.FaultConfig{Name: name}
	asJSON := fs.Bool("json", false, "print JSON instead of the verdict line")
	fs.IntVar(&cfg.Agents, "agents", 20, "concurrent agents")
	switch name {
	case bench.FaultKill9, bench.FaultRedisRestart:
		fs.StringVar(&cfg.Store, "store", "sqlite", "sqlite or redis (kill9 only; redis-restart uses Redis)")
		fs.StringVar(&cfg.Bridge, "bridge", "", "bridge binary (default: build ./cmd/bridge)")
		fs.DurationVar(&cfg.Duration, "duration", 8*time.Second, "how long the load runs")
		fs.DurationVar(&cfg.At, "at", 3*time.Second, "when the fault starts")
		fs.DurationVar(&cfg.Down, "down", time.Second, "how long the process stays down")
	case bench.FaultPlatformCut:
		fs.DurationVar(&cfg.Down, "down", 30*time.Second, "how long the fake platform is cut off")
	case bench.FaultPlatform429:
		fs.DurationVar(&cfg.Down, "down", 4*time.Second, "how long every Bot API call is answered 429")
	case bench.FaultPostOutage:
		fs.DurationVar(&cfg.Down, "down", 30*time.Second, "how long the fake platform is cut off")
		fs.IntVar(&cfg.Agents, "questions", 200, "questions asked during the cut")
	case bench.FaultRestart:
		fs.StringVar(&cfg.Bridge, "bridge", "", "bridge binary (default: build ./cmd/bridge)")
		fs.DurationVar(&cfg.Down, "down", 50*time.Second, "how long the fake platform is cut off (beyond the killed bridge's 40 s claims)")
		fs.IntVar(&cfg.Agents, "questions", 50, "questions posted, then resolved during the cut")
	case bench.FaultHangup:
		fs.DurationVar(&cfg.Down, "delay", 2*time.Second, "how long the fake platforms take per message call")
		fs.IntVar(&cfg.Agents, "questions", 200, "asks whose clients hang up")
	case bench.FaultBurst:
		fs.IntVar(&cfg.Agents, "questions", 500, "questions asked at once")
		fs.IntVar(&cfg.Rate, "rate", 20, "messages a second the fakes allow per chat (the bridge's pacing is set to match)")
		fs.IntVar(&cfg.Pace, "pace", 0, "messages a second the bridge sends per chat (default: --rate)")
	default:
		return usageError{fmt.Errorf("fault: unknown run %q (%s)", name, runNames)}
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	log := func(s string) { fmt.Fprintf(stderr, "  %s %s\n", time.Now().Format("15:04:05.000"), s) }
	var res *bench.FaultResult
	var err error
	switch name {
	case bench.FaultKill9, bench.FaultRedisRestart:
		res, err = bench.RunProcessFault(ctx, cfg, log)
	case bench.FaultPostOutage:
		res, err = bench.RunPostOutage(ctx, cfg, log)
	case bench.FaultRestart:
		res, err = bench.RunRestartInOutage(ctx, cfg, log)
	case bench.FaultHangup:
		res, err = bench.RunClientHangup(ctx, cfg, log)
	case bench.FaultBurst:
		res, err = bench.RunBurst(ctx, cfg, log)
	default:
		res, err = bench.RunPlatformFault(ctx, cfg, log)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if err := bench.WriteJSON(stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, res.Verdict())
	}
	if !res.OK {
		return fmt.Errorf("fault %s: FAIL", name)
	}
	return nil
}
