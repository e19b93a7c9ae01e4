package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
)

// Run receives Slack events until ctx ends. In socket mode it owns the
// Socket Mode connection (reconnecting as Slack asks) and acks every
// envelope before processing it; in http mode it checks the bot token and
// waits, since events arrive on Handler. It returns nil when ctx ends, or
// an error when the tokens are refused.
func (c *Channel) Run(ctx context.Context) error {
	defer c.work.Wait()
	auth, err := c.authTest(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	c.log.Info("connected to Slack", "team", auth.Team, "bot_user", auth.UserID, "mode", c.cfg.Mode)
	if c.cfg.Mode != ModeSocket {
		<-ctx.Done()
		return nil
	}
	return c.runSocket(ctx)
}

// authTest checks the bot token, retrying with backoff while Slack cannot
// be reached; a refused token is a permanent error.
func (c *Channel) authTest(ctx context.Context) (*slackapi.AuthTestResponse, error) {
	retry := backoff.New(time.Second, time.Minute)
	for {
		auth, err := c.api.AuthTestContext(ctx)
		if err == nil {
			return auth, nil
		}
		err = classify(fmt.Errorf("slack: auth.test: %w", err))
		if errors.Is(err, broker.ErrPermanent) || ctx.Err() != nil {
			return nil, err
		}
		wait := retry.Next()
		c.log.Warn("slack unreachable, retrying", "in", wait, "err", err)
		if err := backoff.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Channel) runSocket(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	smc := socketmode.New(c.api, socketmode.OptionLog(discardLogger{}))
	runErr := make(chan error, 1)
	go func() { runErr <- smc.RunContext(ctx) }()
	for {
		select {
		case <-ctx.Done():
			<-runErr
			return nil
		case err := <-runErr:
			if ctx.Err() != nil || errors.Is(err, context.Canceled) {
				return nil
			}
			return classify(fmt.Errorf("slack: socket mode: %w", err))
		case evt := <-smc.Events:
			c.socketEvent(ctx, smc, evt)
		}
	}
}

// socketEvent acks one Socket Mode envelope and starts its processing.
func (c *Channel) socketEvent(ctx context.Context, smc *socketmode.Client, evt socketmode.Event) {
	switch evt.Type {
	case socketmode.EventTypeConnected:
		c.log.Info("socket mode connected")
		return
	case socketmode.EventTypeConnectionError:
		c.log.Warn("socket mode connection failed, retrying", "err", evt.Data)
		return
	case socketmode.EventTypeErrorBadMessage:
		// An envelope slack-go cannot parse (an event type it does not
		// know): ack it anyway so that Slack does not redeliver it.
		if bad, ok := evt.Data.(*socketmode.ErrorBadMessage); ok {
			var env struct {
				EnvelopeID string `json:"envelope_id"`
			}
			if json.Unmarshal(bad.Message, &env) == nil && env.EnvelopeID != "" {
				_ = smc.AckCtx(ctx, env.EnvelopeID, nil)
			}
		}
		return
	case socketmode.EventTypeInteractive, socketmode.EventTypeSlashCommand, socketmode.EventTypeEventsAPI:
	default:
		return
	}
	if evt.Request == nil {
		return
	}
	var fn func(ctx context.Context) followUp
	switch data := evt.Data.(type) {
	case slackapi.InteractionCallback:
		fn = func(ctx context.Context) followUp { return c.interaction(ctx, data) }
	case slackapi.SlashCommand:
		fn = func(ctx context.Context) followUp { return c.slashCommand(ctx, data) }
	case slackevents.EventsAPIEvent:
		eventID := ""
		if cb, ok := data.Data.(*slackevents.EventsAPICallbackEvent); ok {
			eventID = cb.EventID
		}
		fn = func(ctx context.Context) followUp {
			if !c.socketEventOnce(ctx, eventID) {
				return nil
			}
			return c.eventsAPI(ctx, data)
		}
	}
	// As over HTTP, the envelope is acked once its action is recorded
	// (or after ackWithin), so a crash cannot lose an acked tap. The work
	// is counted before the ack, so that whoever sees the ack can wait
	// for it; the wait for the ack happens beside the event loop, which
	// goes on reading envelopes.
	recorded := c.record(ctx, fn)
	c.work.Go(func() {
		c.awaitRecorded(recorded, ctx.Done())
		if err := smc.AckCtx(ctx, evt.Request.EnvelopeID, nil); err != nil {
			c.log.Warn("socket mode ack failed", "err", err)
		}
	})
}

// processTimeout bounds the processing of one action. The action is
// acknowledged to Slack, so it finishes even while shutting down.
const processTimeout = 30 * time.Second

// discardLogger silences slack-go's own logger; the channel logs through
// slog.
type discardLogger struct{}

func (discardLogger) Output(int, string) error { return nil }
