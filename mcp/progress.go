package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// progress sends a progress notification every ProgressEvery while a
// call waits for question r, when the client asked for progress (sent a
// progress token). Clients reset their request timeouts on progress, so a
// question may wait longer than the client's timeout. The returned
// function stop stops the notifications and waits for the sender to end;
// seen hands it the question as the wait last saw it, so that the
// notifications tell the deadline a snooze moved. A question asked with
// warnings gets a first notification at once that says them.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest, r *client.Result) (stop func(), seen func(*client.Result)) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return func() {}, func(*client.Result) {}
	}
	var expires atomic.Pointer[time.Time]
	expires.Store(&r.ExpiresAt)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start := time.Now()
	wg.Go(func() {
		n := 1
		if len(r.Warnings) > 0 {
			// What may keep the question from an answer is told at once,
			// not with the result alone.
			msg := fmt.Sprintf("Asked question %s. Warning: %s.", r.ID, strings.Join(r.Warnings, ". Warning: "))
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: msg})
			if err != nil && ctx.Err() == nil {
				s.log.Debug("mcp: progress notification", "question_id", r.ID, "err", err)
			}
			n++
		}
		t := time.NewTicker(s.cfg.ProgressEvery)
		defer t.Stop()
		for ; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			msg := fmt.Sprintf("Waiting for an answer to question %s (%s so far", r.ID, time.Since(start).Round(time.Second))
			if at := *expires.Load(); !at.IsZero() {
				msg += fmt.Sprintf("; it times out at %s", at.UTC().Format("15:04:05 UTC"))
			}
			msg += ")"
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: msg})
			if err != nil && ctx.Err() == nil {
				s.log.Debug("mcp: progress notification", "question_id", r.ID, "err", err)
			}
		}
	})
	return func() { cancel(); wg.Wait() }, func(r *client.Result) { expires.Store(&r.ExpiresAt) }
}
