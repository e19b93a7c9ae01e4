package hooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
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
	// handle reads the event and returns what to do for it, or nil when
	// the hook has nothing to do for this event.
	handle func(h agentHook, payload []byte) (*hookJob, error)
}

// hookJob is what the hook does for one event: ask a question, or close
// the question of a call settled at the terminal (settled.go).
type hookJob struct {
	ask    *hookAsk
	settle *hookSettled
	// pass says why the hook leaves this event to the agent's own
	// dialog: it prints nothing and exits 0.
	pass string
}

// hookAsk is one question of a hook and how its result becomes output.
type hookAsk struct {
	q client.Question
	// reuseEnded: the idempotency key names this very call (a tool-use
	// id), so an ended question under it is this call's own result. When
	// false the key is a hash of the tool input, shared by every request
	// with that input: askForHook asks under it and a nonce.
	reuseEnded bool
	// decide maps an ended question to the agent's output; nil means no
	// decision (print nothing).
	decide func(res *client.Result) any
	// rules, for a permission question whose call the bridge's approval
	// rules cover (rules.go), or nil.
	rules *hookRules
	// always reports whether the answer picked "Always allow".
	always func(res *client.Result) bool
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
	job, err := h.handle(h, payload)
	if err != nil {
		fmt.Fprintf(stderr, "bridge hook %s: %v\n", h.name, err)
		return cmdline.ExitFailure
	}
	if job == nil {
		return cmdline.ExitOK
	}
	if job.pass != "" {
		fmt.Fprintf(stderr, "bridge hook %s: %s\n", h.name, job.pass)
		return cmdline.ExitOK
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	c := client.New(os.Getenv("ASKBRIDGE_SERVER"), os.Getenv("ASKBRIDGE_KEY"))
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "bridge hook %s: %s\n", h.name, fmt.Sprintf(format, args...))
	}
	if job.settle != nil {
		closeSettled(ctx, c, job.settle, o.connectTimeout, logf)
		return cmdline.ExitOK
	}
	ask := job.ask
	var out any
	if ask.rules != nil {
		out = allowByRule(ctx, c, ask, o, logf)
	}
	if out == nil {
		res, why := askForHook(ctx, c, ask, o, logf)
		if res == nil {
			logf("no decision from chat (%s); the local dialog decides", why)
			return cmdline.ExitOK
		}
		if out = ask.decide(res); out == nil {
			logf("question %s ended %s; the local dialog decides", res.ID, res.Status)
			return cmdline.ExitOK
		}
		if ask.rules != nil && ask.rules.offer != nil && ask.always(res) {
			makeRule(ctx, c, ask, res, o, logf)
		}
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
// The question's tool-call id is an idempotency key. When the agent names
// the call (Claude Code's tool_use_id), that id is the key: a re-run hook
// finds the call's question, open or ended, and an ended one is the
// call's answer. When the key is made from the tool input, the same input
// comes again and again in a session, each time a request of its own: the
// hook waits for an open question of the session under that input (the
// question of a hook that was stopped stays open for hookLease, so that a
// re-run finds it), and otherwise asks anew under the input key and a
// nonce. Either way the question it asks is this request's own, and
// whatever it ends as, even at once, is this request's answer.
func askForHook(ctx context.Context, c *client.Client, a *hookAsk, o hookOptions, logf func(format string, args ...any)) (*client.Result, string) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout+hookGrace)
	defer cancel()
	q := hookQuestion(a, o)
	key := q.ToolCallID
	if !a.reuseEnded {
		if id := openQuestion(ctx, c, q.SessionID, key, o.connectTimeout); id != "" {
			return waitFor(ctx, c, id, logf)
		}
		q.ToolCallID = key + "-" + nonce()
	}
	res, err := submitWithin(ctx, c, q, o.connectTimeout)
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusConflict {
		// The agent's id names a question with another body (asked by
		// another version of the hook): this call gets one of its own.
		q.ToolCallID = key + "-" + nonce()
		res, err = submitWithin(ctx, c, q, o.connectTimeout)
	}
	switch {
	case err != nil:
		return nil, err.Error()
	case res.Terminal():
		return res, ""
	}
	return waitFor(ctx, c, res.ID, logf)
}

// hookQuestion is a.q as the hook asks it: the flags' timeout and route,
// the hook's lease, and no wait in the ask.
func hookQuestion(a *hookAsk, o hookOptions) client.Question {
	q := a.q
	q.Timeout, q.Lease, q.Wait, q.Route = o.timeout.String(), hookLease.String(), "0s", o.route
	return q
}

// waitFor waits for question id to end.
func waitFor(ctx context.Context, c *client.Client, id string, logf func(format string, args ...any)) (*client.Result, string) {
	logf("waiting for an answer in chat to question %s", id)
	res, err := c.Wait(ctx, id)
	if err != nil {
		return nil, fmt.Sprintf("waiting for question %s: %v", id, err)
	}
	return res, ""
}

// openQuestion returns the id of a pending question of the session asked
// under key (key itself or key-<nonce>), or "" when there is none or the
// bridge cannot tell within d.
func openQuestion(ctx context.Context, c *client.Client, session, key string, d time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	qs, err := c.List(ctx, session, client.StatusPending)
	if err != nil {
		return ""
	}
	for _, r := range qs {
		if r.ToolCallID == key || strings.HasPrefix(r.ToolCallID, key+"-") {
			return r.ID
		}
	}
	return ""
}

// nonce names one request of the hook.
func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// submitWithin submits q, retrying lost connections for at most d: a hook
// must not keep the agent waiting on a bridge that is down.
func submitWithin(ctx context.Context, c *client.Client, q client.Question, d time.Duration) (*client.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	pauses := backoff.New(100*time.Millisecond, time.Second)
	for {
		res, err := c.Submit(ctx, q)
		// A call cut by the deadline is a bridge that did not answer in
		// time, however far the call had come.
		if err == nil || (!client.Transient(err) && ctx.Err() == nil) {
			return res, err
		}
		if ctx.Err() != nil || pauses.Wait(ctx) != nil {
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
