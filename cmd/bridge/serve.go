package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/channels/builtin"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/debugserver"
	"github.com/askbridge/askbridge/internal/logbuf"
	"github.com/askbridge/askbridge/internal/park"
)

func newLogger(cfg bridgeconfig.Log, w io.Writer) *slog.Logger {
	return slog.New(newLogHandler(cfg, w))
}

func newLogHandler(cfg bridgeconfig.Log, w io.Writer) slog.Handler {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// newServeLogger is bridge serve's logger, on the batching writer w: a
// warning or an error is written at once, with the lines held before it.
func newServeLogger(cfg bridgeconfig.Log, w *logbuf.Writer) *slog.Logger {
	return slog.New(logbuf.Handler(newLogHandler(cfg, w), w))
}

// newServeCmd is `bridge serve`: it runs until SIGINT or SIGTERM, then
// drains.
func newServeCmd() *cobra.Command {
	var f bridgeconfig.Flags
	var debugAddr string
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run the bridge",
		Long: `Run the bridge: the HTTP API, the web inbox, the configured chat channels
and the MCP endpoint, until SIGINT or SIGTERM; then release waiting agents
(they re-attach after a restart) and drain. With no configuration it uses
SQLite in the data directory, the web inbox and the text channel, on
` + bridgeconfig.DefaultListen + `. It refuses to start on any problem in the
configuration: "bridge check-config" lists them all.`,
		Example: `  bridge serve
  bridge serve --config askbridge.yaml
  bridge serve --listen 127.0.0.1:9000 --store redis://127.0.0.1:6379/0`,
		Args: cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := bridgeconfig.FromFlags(f)
			if err != nil {
				return cmdline.Exit(cmdline.ExitBadInput, err)
			}
			if debugAddr != "" {
				d, err := debugserver.Start(debugAddr)
				if err != nil {
					return cmdline.Exit(cmdline.ExitBadInput, err)
				}
				defer d.Close()
				fmt.Fprintf(cmd.ErrOrStderr(), "Profiles (net/http/pprof): %s\n", d.URL())
			}
			return serve(cmd.Context(), cfg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	bridgeconfig.AddFlags(cmd, &f)
	cmd.Flags().StringVar(&debugAddr, "debug-addr", "", "serve net/http/pprof on this loopback `ADDR` (such as 127.0.0.1:6060); off by default")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "stopped by SIGINT or SIGTERM after draining", cmdline.ExitBadInput, "a problem in the configuration or the flags", cmdline.ExitFailure, "the store, a channel or the listen address failed")
	return cmd
}

// serve builds everything from cfg, serves until ctx ends, and shuts down
// in order: stop taking work, release waiting agents, drain, close.
func serve(ctx context.Context, cfg bridgeconfig.Config, stdout, stderr io.Writer) error {
	// Log lines are written in batches (internal/logbuf): warnings and
	// errors at once, the rest within 10 ms.
	logw := logbuf.New(stderr)
	defer logw.Flush()
	log := newServeLogger(cfg.Log, logw)
	loop := cfg.Loopback()
	if !loop && len(cfg.Agents) == 0 {
		return fmt.Errorf("refusing to listen on %s without agent keys: configure agents (with key_env) or listen on 127.0.0.1", cfg.Listen)
	}
	// The address is taken first: a port in use is the likeliest reason
	// not to start, and it is said before the store is opened (and, on
	// Redis, before this instance joins the others).
	ln, err := cfg.Server.Listen(cfg.Listen, log)
	if err != nil {
		return listenError(cfg.Listen, err)
	}
	defer ln.Close()
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	st, elector, err := cfg.Store.Open(ctx, cfg.DataDir, log)
	if err != nil {
		return err
	}
	defer st.Close()

	loc, _ := time.LoadLocation(cfg.Timezone)
	app, err := build(ctx, cfg, st, elector, loc, loop, log)
	if err != nil {
		return err
	}

	stopMetrics, err := app.metrics.ServeMetrics(cfg.Metrics, cfg.Server, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	srv := cfg.Server.HTTPServer(app.handler)
	runCtx, cancelRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { app.broker.Run(runCtx) })
	for _, job := range app.jobs {
		wg.Go(func() { job(runCtx) })
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	go func() { _ = srv.Serve(app.parking) }()

	url := "http://" + ln.Addr().String()
	log.Info("askbridge listening", "addr", ln.Addr().String(), "store", app.storeName, "data_dir", cfg.DataDir)
	fmt.Fprintf(stdout, "askbridge is listening on %s\n", url)
	if app.inboxURL != nil {
		fmt.Fprintf(stdout, "Open the web inbox: %s\n", app.inboxURL(ln.Addr().String()))
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		cancelRun()
		wg.Wait()
		return fmt.Errorf("http server: %w", err)
	}
	log.Info("shutting down: releasing waiting agents")
	app.api.Drain()
	app.drainMCP()
	shutCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("http shutdown", "err", err)
	}
	// The released long-polls whose connections were parked answer on
	// goroutines of their own, which Shutdown does not wait for.
	if err := app.parking.Wait(shutCtx); err != nil {
		log.Warn("http shutdown: long-polls still answering", "err", err)
	}
	cancelRun()
	wg.Wait()
	app.broker.Close()
	log.Info("stopped")
	return nil
}

// listenError says why the bridge cannot listen on addr, and how to
// choose another address when this one is taken.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("cannot listen on %s: the address is in use (another bridge, or another server?); choose another with --listen ADDR or listen: in the configuration", addr)
	}
	return fmt.Errorf("cannot listen on %s: %w", addr, err)
}

// app is a wired bridge.
type app struct {
	broker  *broker.Broker
	api     *api.Server
	metrics *api.Metrics
	// parking holds long-polls' connections while they wait; the HTTP
	// server serves it beside its listener.
	parking   *park.Parking
	jobs      []func(ctx context.Context)
	storeName string
	inboxURL  func(addr string) string
	drainMCP  func()
	// handler is the API (with the inbox, MCP and webhooks mounted on it)
	// behind the edge guard: what the HTTP server serves.
	handler http.Handler
}

// build wires store, broker, channels and API from the typed config.
func build(ctx context.Context, cfg bridgeconfig.Config, st broker.Store, elector broker.Elector, loc *time.Location, loop bool, log *slog.Logger) (*app, error) {
	var metrics *api.Metrics
	var b *broker.Broker
	metrics = api.NewMetrics(func() int { return b.Waiting() }, st)
	b, err := broker.New(broker.Config{
		Store: st, Routes: cfg.Routes.Broker(), DefaultTimeout: time.Duration(cfg.Timeouts.Default),
		ReminderPoints: cfg.Timeouts.Reminders, Location: loc, Logger: log, Observer: metrics,
		PendingPerAgent: cfg.Limits.PendingPerAgent, QuestionsOff: api.QuestionsOff(cfg.Agents),
		OnBehalfOf:     api.OnBehalfOf(cfg.Agents),
		People:         cfg.Directory,
		ChannelLocales: cfg.Channels.Locales(),
		Grace:          cfg.Outbox.AskGrace(),
	})
	if err != nil {
		return nil, err
	}
	ob := outbox.Attach(b, st, cfg.Outbox.Delivery())
	w, err := cfg.Channels.WithPeople(cfg.Directory).Build(b, st, loop, loc, log)
	if err != nil {
		return nil, err
	}
	policy, err := cfg.Callbacks.Policy()
	if err != nil {
		return nil, err
	}
	metricsKey, metricsRefusal := cfg.Metrics.OnMain(cfg.Exposed())
	parking := park.New()
	srv := api.New(api.Config{
		AgentKeys: api.AgentKeys(cfg.Agents), ResponderKeys: api.ResponderKeys(cfg.Responders), Loopback: loop,
		TextChannels: w.TextChannels, Logger: log, Metrics: metrics, CallbackPolicy: policy,
		MetricsKey: metricsKey, MetricsRefusal: metricsRefusal,
		StreamsPerAgent: cfg.Limits.StreamsPerAgent, Parking: parking,
		AuditKey: cfg.Audit.Key(),
	}, b, st)
	for pattern, h := range w.Handlers {
		srv.Handle(pattern, h)
	}
	a := &app{broker: b, api: srv, parking: parking, metrics: metrics, storeName: cfg.Store.Name(), inboxURL: w.InboxURL}
	a.jobs = append(a.jobs, timeoutJobs(cfg, b, st, elector, log)...)
	a.jobs = append(a.jobs, auditJobs(cfg, st, elector, log)...)
	a.jobs = append(a.jobs, ob.Run)
	metrics.WatchOutbox(st)
	a.jobs = append(a.jobs, callbackJobs(cfg, st, log, metrics.Registry())...)
	if a.drainMCP, err = mountMCP(cfg, srv, log); err != nil {
		return nil, err
	}
	if a.handler, err = guard(cfg, w, srv, log); err != nil {
		return nil, err
	}
	for _, r := range w.Runners {
		a.jobs = append(a.jobs, runnerJob(r, elector, log))
	}
	a.jobs = append(a.jobs, w.Jobs...)
	_ = ctx
	return a, nil
}

// runnerJob runs a channel's inbound loop, on the leader only when the
// platform allows one receiver per bot. The one retry layer is the
// channel's own: Run retries what a retry can fix until ctx ends, and
// returns an error only for a failure that no retry fixes (a refused
// token), which stops that channel's receiving until the configuration is
// fixed and the bridge restarted.
func runnerJob(r builtin.Runner, elector broker.Elector, log *slog.Logger) func(context.Context) {
	run := func(ctx context.Context) {
		if err := r.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("channel receiver stopped: fix the configuration and restart", "channel", r.Name, "err", err)
		}
	}
	if s, ok := r.Runner.(broker.Singleton); ok && s.Singleton() {
		return func(ctx context.Context) {
			if err := elector.RunAsLeader(ctx, "receiver:"+r.Name, run); err != nil && ctx.Err() == nil {
				log.Error("leader election", "channel", r.Name, "err", err)
			}
		}
	}
	return run
}
