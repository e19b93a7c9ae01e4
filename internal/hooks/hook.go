package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/backoff"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// Defaults of the hook commands. The installed hook's own timeout
// (hookInstallTimeout) is longer than the question's, so that the question
// ends by itself and the agent is never the one to kill the hook.
const (
	defaultHookTimeout        = 29 * time.Minute
	defaultHookConnectTimeout = 5 * time.Second
	// hookLease lets the bridge cancel the question of a hook that was
	// killed (the person interrupted the agent); a re-run within the lease
	// re-attaches to it.
	hookLease = time.Minute
	// hookGrace is how long after the question's timeout the hook still
	// waits for the bridge to report it, before giving up by itself.
	hookGrace = 30 * time.Second
	// maxHookRepeats bounds the fresh questions asked for one tool input
	// whose earlier questions have all ended.
	maxHookRepeats = 100
)

// hookOptions are the flags of `bridge hook claude|codex`.
type hookOptions struct {
	timeout, connectTimeout time.Duration
	route                   string
}

// agentHook turns one agent's event into a question and the answer into
// the agent's decision JSON.
type agentHook struct {
	// name is the command word and the session namespace ("claude").
	name string
	// title names the agent to people ("Claude Code").
	title string
	// handle reads the event and returns what to ask, or nil when the
	// hook has nothing to decide for this event.
	handle func(h agentHook, payload []byte) (*hookAsk, error)
}

// hookAsk is one question of a hook and how its result becomes output.
type hookAsk struct {
	q client.Question
	// reuseEnded: the idempotency key names this very call (a tool-use
	// id), so an ended question under it is this call's own result. When
	// false the key is a hash of the tool input, and an ended question is
	// an earlier request with the same input: it is not reused.
	reuseEnded bool
	// decide maps an ended question to the agent's output; nil means no
	// decision (print nothing).
	decide func(res *client.Result) any
}

// runAgentHook is `bridge hook claude` and `bridge hook codex` with
// their flags parsed. Exit 1 is for bad flags or an unreadable event (a
// setup error both agents treat as "no decision"); every outcome of the
// question exits 0.
func runAgentHook(h agentHook, o hookOptions, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := broker.CheckTimeout(o.timeout); err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: --timeout %v\n", h.name, err)
		return cmdline.ExitFailure
	}
	payload, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: read the event: %v\n", h.name, err)
		return cmdline.ExitFailure
	}
	ask, err := h.handle(h, payload)
	if err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: %v\n", h.name, err)
		return cmdline.ExitFailure
	}
	if ask == nil {
		return cmdline.ExitOK
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	c := client.New(os.Getenv("ASKBRIDGE_SERVER"), os.Getenv("ASKBRIDGE_KEY"))
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "bridge hook %s: %s\n", h.name, fmt.Sprintf(format, args...))
	}
	res, why := askForHook(ctx, c, ask, o, logf)
	if res == nil {
		logf("no decision from chat (%s); the local dialog decides", why)
		return cmdline.ExitOK
	}
	out := ask.decide(res)
	if out == nil {
		logf("question %s ended %s; the local dialog decides", res.ID, res.Status)
		return cmdline.ExitOK
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: write the decision: %v\n", h.name, err)
	}
	return cmdline.ExitOK
}

// askForHook asks a.q and waits for its end, saying through logf which
// question it waits for (agents show a hook's stderr in their verbose
// modes). It returns nil and the reason when there is nothing to decide
// on: the bridge is down or refused the question, or the wait outlived
// the question's timeout.
//
// The question's tool-call id is an idempotency key: a re-run hook finds
// the question its earlier run asked and waits for it. Under a key made
// from the tool input, an ended question is an earlier request, not this
// one (an "Allow once" must not allow the next identical command), so the
// hook moves on to the next key, key-1, key-2, … until it finds an open
// question or asks a new one.
func askForHook(ctx context.Context, c *client.Client, a *hookAsk, o hookOptions, logf func(format string, args ...any)) (*client.Result, string) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout+hookGrace)
	defer cancel()
	q := a.q
	q.Timeout, q.Lease, q.Wait, q.Route = o.timeout.String(), hookLease.String(), "0s", o.route
	base := q.ToolCallID
	for n := 0; n < maxHookRepeats; n++ {
		q.ToolCallID = base
		if n > 0 {
			q.ToolCallID = fmt.Sprintf("%s-%d", base, n)
		}
		res, err := submitWithin(ctx, c, q, o.connectTimeout)
		var ae *client.APIError
		switch {
		case errors.As(err, &ae) && ae.StatusCode == http.StatusConflict:
			continue // the key names a question with another body
		case err != nil:
			return nil, err.Error()
		case res.Terminal() && !a.reuseEnded:
			continue
		case res.Terminal():
			return res, ""
		}
		id := res.ID
		logf("waiting for an answer in chat to question %s", id)
		if res, err = c.Wait(ctx, id); err != nil {
			return nil, fmt.Sprintf("waiting for question %s: %v", id, err)
		}
		return res, ""
	}
	return nil, fmt.Sprintf("%d earlier questions for the same input have ended", maxHookRepeats)
}

// submitWithin submits q, retrying lost connections for at most d: a hook
// must not keep the agent waiting on a bridge that is down.
func submitWithin(ctx context.Context, c *client.Client, q client.Question, d time.Duration) (*client.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	pauses := backoff.New(100*time.Millisecond, time.Second)
	for {
		res, err := c.Submit(ctx, q)
		if err == nil || !client.Transient(err) {
			return res, err
		}
		if pauses.Wait(ctx) != nil {
			return nil, fmt.Errorf("the bridge at %s did not answer within %s: %w", hookServer(), d, err)
		}
	}
}

func hookServer() string {
	if s := os.Getenv("ASKBRIDGE_SERVER"); s != "" {
		return s
	}
	return client.DefaultServer
}
