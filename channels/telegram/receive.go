package telegram

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/backoff"
	"github.com/askbridge/askbridge/internal/longlived"
	"github.com/askbridge/askbridge/internal/webhook"
)

// allowedUpdates are the update kinds the channel asks Telegram for.
const allowedUpdates = `["message","callback_query","my_chat_member"]`

// SecretHeader carries the webhook secret token on Telegram's requests.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// Singleton reports whether Run may run on one instance only: true in
// polling mode, where Telegram allows one getUpdates caller per bot.
func (c *Channel) Singleton() bool { return c.cfg.Mode == ModePolling }

// Run receives updates until ctx ends. It first asks Telegram who the bot
// is (getMe). In polling mode it then deletes any webhook and long-polls
// getUpdates; in webhook mode it sets the webhook (with its secret token)
// and then waits, as updates arrive on Handler. It returns an error only
// for failures that retrying cannot fix, such as a revoked token.
func (c *Channel) Run(ctx context.Context) error {
	if err := c.retry(ctx, "getMe", func() error { return c.identify(ctx) }); err != nil || ctx.Err() != nil {
		return err
	}
	if c.cfg.Mode == ModeWebhook {
		err := c.retry(ctx, "setWebhook", func() error {
			return c.makeRequest(ctx, "setWebhook", tgbotapi.Params{
				"url":             c.cfg.WebhookURL,
				"secret_token":    c.secret,
				"allowed_updates": allowedUpdates,
			})
		})
		if err != nil {
			return err
		}
		c.log.Info("webhook set", "url", c.cfg.WebhookURL)
		<-ctx.Done()
		return nil
	}
	err := c.retry(ctx, "deleteWebhook", func() error {
		return c.makeRequest(ctx, "deleteWebhook", tgbotapi.Params{"drop_pending_updates": "false"})
	})
	if err != nil {
		return err
	}
	return c.poll(ctx)
}

// retry runs fn until it succeeds, fails permanently or ctx ends,
// backing off between attempts.
func (c *Channel) retry(ctx context.Context, what string, fn func() error) error {
	retry := backoff.New(time.Second, 30*time.Second)
	for {
		err := fn()
		switch {
		case err == nil, ctx.Err() != nil:
			return nil
		case errors.Is(err, broker.ErrPermanent):
			return err
		}
		wait := retry.Next()
		c.log.Warn(what+" failed; retrying", "in", wait, "err", err)
		if c.sleep(ctx, wait) != nil {
			return nil
		}
	}
}

// poll is the long-polling loop: one getUpdates at a time, each update
// handled in order, the offset confirming what was handled.
func (c *Channel) poll(ctx context.Context) error {
	offset := 0
	retry := backoff.New(time.Second, 30*time.Second)
	for ctx.Err() == nil {
		cfg := tgbotapi.NewUpdate(offset)
		cfg.Timeout = int(c.cfg.PollTimeout / time.Second)
		cfg.AllowedUpdates = []string{"message", "callback_query", "my_chat_member"}
		var updates []tgbotapi.Update
		err := c.call(ctx, "getUpdates", func(bot *tgbotapi.BotAPI) error {
			var err error
			updates, err = bot.GetUpdates(cfg)
			return err
		})
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if errors.Is(err, broker.ErrPermanent) {
				return err
			}
			wait := retry.Next()
			c.log.Warn("getUpdates failed; retrying", "in", wait, "err", err)
			if c.sleep(ctx, wait) != nil {
				return nil
			}
			continue
		}
		retry.Reset()
		for _, u := range updates {
			if u.UpdateID < offset {
				continue
			}
			offset = u.UpdateID + 1
			c.handleUpdate(ctx, u)
		}
	}
	return nil
}

// maxUpdateBody bounds a webhook update. The largest a person can cause
// is a 4096-character reply to a question message, which the update
// repeats whole with its keyboard: with the Bot API's \uXXXX escapes of
// non-ASCII text about 50 KB, too close to 64 KiB for that limit. The
// secret token is checked before a byte of the body is read, so only
// Telegram can make the bridge read one.
const maxUpdateBody = 256 << 10

// Handler receives webhook updates. A request without the secret token
// set through setWebhook is refused with 401 and nothing is read or
// processed (logged at most once a second, with a count). An update is
// read within 10 s and may hold 256 KiB (413 beyond); it is processed
// before the answer, which may take longer than the server's
// write_timeout. Serve it at the path of webhook_url.
func (c *Channel) Handler() http.Handler {
	return longlived.Handler(http.HandlerFunc(c.serveWebhook))
}

// Routes serves Handler at the path of webhook_url in webhook mode; in
// polling mode the channel serves nothing.
func (c *Channel) Routes() []channels.Route {
	if c.cfg.Mode != ModeWebhook {
		return nil
	}
	return []channels.Route{{Pattern: c.cfg.WebhookPath(), Handler: c.Handler(), Webhook: true}}
}

func (c *Channel) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if !c.validSecret(r.Header.Get(SecretHeader)) {
		c.refusals.Warn("secret", "refused a webhook request without the secret token", "remote", r.RemoteAddr)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := webhook.ReadBody(w, r, maxUpdateBody)
	if err != nil {
		http.Error(w, "bad update: "+err.Error(), webhook.Status(err))
		return
	}
	var u tgbotapi.Update
	if err := json.Unmarshal(body, &u); err != nil {
		http.Error(w, "bad update: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	if err := c.identify(ctx); err != nil {
		// Telegram delivers the update again after an error answer.
		c.log.Warn("webhook update held back: the bot does not know who it is yet", "err", err)
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	if c.seen.add(u.UpdateID) {
		c.handleUpdate(ctx, u)
	}
	w.WriteHeader(http.StatusOK)
}

// validSecret compares in constant time (of the digests, so that the
// length leaks nothing either).
func (c *Channel) validSecret(got string) bool {
	if c.secret == "" || got == "" {
		return false
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(c.secret))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
