package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askbridge/askbridge/app/hooks"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/backoff"
	"github.com/askbridge/askbridge/mcp"
)

// channelRelay turns the permission prompts Claude Code relays into
// questions on the bridge, one goroutine each, and a person's answer into
// one verdict notification. A prompt nobody decides in chat (timeout,
// cancelled, bridge down) gets no verdict: the terminal's dialog decides.
// While the relay runs, each goroutine's long-polls renew its question's
// lease; when the relay stops (Claude Code closed the session, or the
// process was interrupted) the goroutines cancel their questions, and
// when the process is killed the lease lapses and the bridge cancels
// them.
type channelRelay struct {
	c      *client.Client
	notify func(ctx context.Context, method string, params any) error
	o      channelOptions
	log    *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu sync.Mutex
	// open are the request ids being relayed: a repeated notification
	// for one of them asks nothing.
	open map[string]bool
}

// channelNotifyTimeout bounds writing one notification to Claude Code.
const channelNotifyTimeout = 10 * time.Second

func newChannelRelay(ctx context.Context, c *client.Client, notify func(context.Context, string, any) error, o channelOptions, log *slog.Logger) *channelRelay {
	r := &channelRelay{c: c, notify: notify, o: o, log: log, open: map[string]bool{}}
	r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return r
}

// receive takes one permission_request's params. It runs on the
// connection's reading goroutine, so it only checks them and starts the
// relay of the prompt. Bad params are logged, naming the problem, and ask
// nobody: a notification has no reply to carry an error.
func (r *channelRelay) receive(params json.RawMessage) {
	var req mcp.PermissionRequest
	if err := json.Unmarshal(params, &req); err != nil {
		r.log.Warn("permission_request ignored: its params are not an object of four strings", "err", err)
		return
	}
	p := hooks.ChannelPrompt{RequestID: req.RequestID, Tool: req.ToolName, Description: req.Description, InputPreview: req.InputPreview}
	if err := p.Validate(); err != nil {
		r.log.Warn("permission_request ignored: "+err.Error(), "request_id", req.RequestID)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return
	}
	if r.open[p.RequestID] {
		r.log.Info("permission_request already relayed", "request_id", p.RequestID)
		return
	}
	r.open[p.RequestID] = true
	r.wg.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.open, p.RequestID)
			r.mu.Unlock()
		}()
		r.relay(p)
	})
}

// relay asks people about one prompt, waits for their answer and sends
// its verdict.
func (r *channelRelay) relay(p hooks.ChannelPrompt) {
	log := r.log.With("request_id", p.RequestID, "tool", p.Tool)
	q := p.Question(r.o.session)
	q.Route, q.Timeout, q.Lease, q.Wait = r.o.route, r.o.timeout.String(), r.o.lease.String(), "0s"
	// Once it ends, what people write under it is for the session
	// (channel_chat.go).
	q.Conversation = true
	res, err := r.submit(q, p.RequestID)
	if err != nil {
		log.Warn("could not ask in chat; the terminal decides", "err", err)
		return
	}
	id := res.ID
	log = log.With("question_id", id)
	if !res.Terminal() {
		log.Info("asked in chat")
		if res, err = r.c.Wait(r.ctx, id); err != nil {
			if r.ctx.Err() != nil {
				r.cancelQuestion(log, id)
				return
			}
			log.Warn("lost the question; the terminal decides", "err", err)
			return
		}
	}
	d, ok := hooks.ChannelVerdict(res, q.Question)
	if !ok {
		log.Info("no decision in chat; the terminal decides", "status", res.Status, "reason", res.Reason)
		return
	}
	// Sent once, even when the answer comes after the terminal's: Claude
	// Code ignores a verdict for a prompt it no longer has open.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), channelNotifyTimeout)
	defer cancel()
	if err := r.notify(ctx, mcp.MethodPermissionVerdict, mcp.PermissionVerdict{RequestID: p.RequestID, Behavior: d.Behavior}); err != nil {
		log.Warn("could not send the verdict", "behavior", d.Behavior, "err", err)
		return
	}
	log.Info("verdict sent", "behavior", d.Behavior, "by", answeredBy(res))
	if d.Note == "" {
		return
	}
	ev := mcp.ChannelEvent{Content: d.Note, Meta: map[string]string{"request_id": p.RequestID, "tool": p.Tool, "behavior": d.Behavior}}
	if err := r.notify(ctx, mcp.MethodChannelEvent, ev); err != nil {
		log.Warn("could not send the person's note", "err", err)
	}
}

// submit asks q, retrying a bridge that cannot be reached for at most
// --connect-timeout. Its key is the request id with a random suffix:
// Claude Code's ids are short, and an ended question under a reused one
// must never answer a new prompt.
func (r *channelRelay) submit(q client.Question, requestID string) (*client.Result, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.o.connectTimeout)
	defer cancel()
	q.ToolCallID = channelKey(requestID)
	pauses := backoff.New(100*time.Millisecond, time.Second)
	for conflicts := 0; ; {
		res, err := r.c.Submit(ctx, q)
		var ae *client.APIError
		switch {
		case err == nil:
			return res, nil
		case errors.As(err, &ae) && ae.StatusCode == http.StatusConflict && conflicts < 3:
			conflicts++ // the key names another question: draw another
			q.ToolCallID = channelKey(requestID)
			continue
		case !client.Transient(err):
			return nil, err
		}
		if pauses.Wait(ctx) != nil {
			return nil, fmt.Errorf("the bridge at %s did not answer within %s: %w", r.c.Server(), r.o.connectTimeout, err)
		}
	}
}

// cancelQuestion ends the question of a prompt whose relay stopped.
func (r *channelRelay) cancelQuestion(log *slog.Logger, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.c.Cancel(ctx, id, mcp.ReasonAgentGone); err != nil {
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusConflict {
			log.Warn("could not cancel the question", "err", err)
		}
		return
	}
	log.Info("question cancelled: the channel stopped")
}

// stop ends every relay: their questions are cancelled. It returns when
// they have.
func (r *channelRelay) stop() {
	r.mu.Lock()
	r.cancel()
	r.mu.Unlock()
	r.wg.Wait()
}

// channelKey is a prompt's question key: "<request id>-<8 random>".
func channelKey(requestID string) string {
	return requestID + "-" + strings.ToLower(rand.Text()[:8])
}

// answeredBy names who decided, for the log.
func answeredBy(res *client.Result) string {
	if a := res.AnsweredBy; a != nil {
		if a.Person != nil {
			return "person:" + a.Person.ID
		}
		return a.Channel + ":" + a.User
	}
	return ""
}
