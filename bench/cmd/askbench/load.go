package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/bench"
)

// envFlags are the flags that say what to run against.
type envFlags struct {
	store     string
	instances int
	bridge    string
	servers   string
	profile   string
}

func (f *envFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.store, "store", "sqlite", "sqlite, redis (a private redis-server) or a redis:// URL")
	fs.IntVar(&f.instances, "instances", 1, "bridge serve processes to start (1 or 2; 2 needs Redis)")
	fs.StringVar(&f.bridge, "bridge", "", "bridge binary (default: build ./cmd/bridge)")
	fs.StringVar(&f.profile, "config", string(bench.ProfileDefault), "bridge configuration: default (bridge serve with no config file: web and cli channels, info logs) or light (cli only, web off, warn logs)")
	fs.StringVar(&f.servers, "server", "", "comma-separated base URLs of running bridges (loopback only) instead of starting them")
}

// start checks the flags, raises the open-file limit and starts (or
// joins, with --server) the bridges and their store.
func (f *envFlags) start(ctx context.Context) (*bench.Env, error) {
	ec, err := f.config()
	if err != nil {
		return nil, err
	}
	if _, err := bench.RaiseOpenFiles(); err != nil {
		return nil, err
	}
	return bench.StartEnv(ctx, ec)
}

func (f *envFlags) config() (bench.EnvConfig, error) {
	c := bench.EnvConfig{Store: f.store, Instances: f.instances, Bridge: f.bridge}
	p, err := bench.ParseProfile(f.profile)
	if err != nil {
		return c, usageError{err}
	}
	c.Profile = p
	if f.servers != "" {
		for _, s := range strings.Split(f.servers, ",") {
			if !strings.HasPrefix(s, "http://127.0.0.1:") {
				return c, usageError{fmt.Errorf("--server %q: only http://127.0.0.1:PORT is allowed", s)}
			}
			c.Servers = append(c.Servers, strings.TrimSuffix(s, "/"))
		}
	}
	switch {
	case c.Instances != 1 && c.Instances != 2:
		return c, usageError{fmt.Errorf("--instances %d: use 1 or 2", c.Instances)}
	case c.Store == "sqlite" || c.Store == "redis":
	case strings.HasPrefix(c.Store, "redis://"):
		u, err := url.Parse(c.Store)
		if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost") {
			return c, usageError{fmt.Errorf("--store %q: only a Redis on 127.0.0.1 is allowed", c.Store)}
		}
	default:
		return c, usageError{fmt.Errorf("--store %q: use sqlite, redis or a redis://127.0.0.1:PORT URL", c.Store)}
	}
	if c.Instances == 2 && c.Store == "sqlite" && len(c.Servers) == 0 {
		return c, usageError{fmt.Errorf("--instances 2: two instances share a store only with Redis; add --store redis")}
	}
	return c, nil
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	return nil
}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef envFlags
	ef.register(fs)
	cfg := bench.LoadConfig{}
	fs.IntVar(&cfg.Agents, "agents", 100, "concurrent agents")
	fs.IntVar(&cfg.Cycles, "cycles", 20000, "at most this many ask–answer cycles")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "start no cycle after this long")
	fs.StringVar(&cfg.Mode, "mode", bench.ModePending, "blocking or pending")
	fs.DurationVar(&cfg.Think, "think", 0, "responder think time before answering")
	fs.StringVar(&cfg.Client, "client", bench.ClientRaw, "the agents' HTTP client: raw (plain HTTP/1.1, light on the tool's CPU) or net/http")
	storeOnly := fs.Bool("store-only", true, "also measure the store-only bound")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	perfOut := fs.String("perf", "", "record a CPU profile of the first bridge with Linux perf into this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	env, err := ef.start(ctx)
	if err != nil {
		return err
	}
	defer env.Close()
	if *perfOut != "" && len(env.Bridges) > 0 {
		stop, err := startPerf(*perfOut, env.Bridges[0].Pid())
		if err != nil {
			return err
		}
		defer stop()
	}
	rep, err := bench.RunLoad(ctx, env, cfg, *storeOnly)
	if err != nil {
		return err
	}
	if *asJSON {
		return bench.WriteJSON(stdout, rep)
	}
	return rep.WriteTable(stdout)
}

// startPerf samples pid's stacks with perf record until the returned
// function is called.
func startPerf(out string, pid int) (func(), error) {
	cmd := exec.Command("perf", "record", "-F", "499", "-g", "-q", "-o", out, "-p", strconv.Itoa(pid))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf: %w (is perf installed?)", err)
	}
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}, nil
}
