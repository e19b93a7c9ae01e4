package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// responder plays the person: it returns the commands to send for a
// question once it is posted (none: nobody answers).
type responder func(q *broker.Question) []string

// autoChannel is a chat channel whose person answers at once with the
// commands of its responder, through the broker's one inbound path.
type autoChannel struct {
	b       *broker.Broker
	copies  broker.Messages
	respond responder
	wg      sync.WaitGroup
	ctx     context.Context
}

func (c *autoChannel) Name() string { return "auto" }

func (c *autoChannel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	if c.respond != nil {
		cmds := c.respond(q)
		c.wg.Go(func() {
			// The broker records the posted copy after Post returns;
			// answer once it is known, as a person would.
			for range 500 {
				if refs, _ := c.copies.Messages(c.ctx, q.ID); len(refs) > 0 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			for _, cmd := range cmds {
				c.b.HandleInbound(c.ctx, broker.Inbound{Channel: "auto", Chat: chat, User: "u1", Name: "ana", Text: cmd})
			}
		})
	}
	return broker.MessageRef{Channel: "auto", Chat: chat, MessageID: q.ID}, nil
}

func (c *autoChannel) Update(context.Context, *broker.Question, broker.MessageRef) error { return nil }

// bridge is an askbridge server in this process: the real API, broker and
// SQLite store, on a fixed address so that it can be restarted there.
type bridge struct {
	URL  string
	B    *broker.Broker
	path string
	addr string

	ch   *autoChannel
	sb   *sqlitetest.Broker
	api  *api.Server
	hs   *http.Server
	done chan struct{}
}

// startBridge serves a bridge on the SQLite file path at addr
// ("127.0.0.1:0" picks a port). Route "default" posts to the auto
// channel; route "nowhere" to a channel that is not configured; route
// "quiet" to the text channel, which nobody watches; route
// "snoozy" to the auto channel, and people may snooze its questions.
func startBridge(path, addr string, respond responder) (*bridge, error) {
	sb, err := sqlitetest.Start(path, func(c *broker.Config) {
		c.Routes = map[string]broker.Route{
			"default": {Targets: []broker.Target{{Channel: "auto", Chat: "room"}}},
			"nowhere": {Targets: []broker.Target{{Channel: "sms", Chat: "+100"}}},
			"quiet":   {Targets: []broker.Target{{Channel: cli.Name}}},
			"snoozy": {Targets: []broker.Target{{Channel: "auto", Chat: "room"}},
				Policy: broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}}},
		}
	})
	if err != nil {
		return nil, err
	}
	ch := &autoChannel{b: sb.Broker, copies: sb.Store, respond: respond, ctx: sb.Ctx}
	sb.Register(ch)
	sb.Register(&cli.Channel{})
	var ln net.Listener
	for range 50 { // the old server's port may take a moment to free
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		sb.Close()
		return nil, err
	}
	srv := api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler), DefaultWait: 2 * time.Second}, sb.Broker, sb.Store)
	br := &bridge{
		URL: "http://" + ln.Addr().String(), B: sb.Broker, path: path, addr: ln.Addr().String(),
		ch: ch, sb: sb, api: srv, hs: &http.Server{Handler: srv}, done: make(chan struct{}),
	}
	go func() { _ = br.hs.Serve(ln); close(br.done) }()
	return br, nil
}

// Stop shuts the bridge down as `bridge serve` does: release waiting
// agents, stop serving, close the store.
func (br *bridge) Stop() {
	br.api.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := br.hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		br.hs.Close()
	}
	<-br.done
	br.sb.Stop()
	br.ch.wg.Wait()
	br.sb.Close()
}

// Kill stops the bridge abruptly, as a crash would: open connections
// drop, nothing is drained.
func (br *bridge) Kill() {
	br.hs.Close()
	<-br.done
	br.sb.Stop()
	br.ch.wg.Wait()
	br.sb.Close()
}

// Restart kills the bridge and starts a new one on the same file and
// address.
func (br *bridge) Restart(respond responder) (*bridge, error) {
	br.Kill()
	return startBridge(br.path, br.addr, respond)
}

// exampleBridge starts a bridge in a temporary directory for an example.
func exampleBridge(respond responder) (*bridge, func()) {
	dir, err := os.MkdirTemp("", "askbridge-example")
	if err != nil {
		panic(err)
	}
	br, err := startBridge(filepath.Join(dir, "askbridge.db"), "127.0.0.1:0", respond)
	if err != nil {
		panic(err)
	}
	return br, func() { br.Stop(); os.RemoveAll(dir) }
}

// answer returns a responder that sends "/answer <id> <choice>".
func answer(choice string) responder {
	return func(q *broker.Question) []string { return []string{"/answer " + q.ID + " " + choice} }
}

// API is the bridge's HTTP handler, to serve behind another server.
func (br *bridge) API() http.Handler { return br.api }
