package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
)

const (
	// maxRetries bounds the retries of one call refused with 429.
	maxRetries = 3
	// maxRetryWait is the longest retry_after honoured in place; a longer
	// flood wait fails the call so that the caller is not held up.
	maxRetryWait = 30 * time.Second
)

// ctxClient binds the library's context-free requests to a context.
type ctxClient struct {
	ctx context.Context
	c   *http.Client
}

func (c ctxClient) Do(r *http.Request) (*http.Response, error) { return c.c.Do(r.WithContext(c.ctx)) }

// botFor returns the bot whose requests end with ctx.
func (c *Channel) botFor(ctx context.Context) *tgbotapi.BotAPI {
	b := *c.bot
	b.Client = ctxClient{ctx: ctx, c: c.http}
	return &b
}

// call runs fn against the Bot API, waiting out 429 answers as Telegram
// asks (retry_after, or internal/backoff's pauses from 1 s when it does
// not say) up to maxRetries times, and returns the classified, token-free
// error. It is for the calls made directly (answering a button tap, a
// reply, polling); the outbox's calls go through once.
func (c *Channel) call(ctx context.Context, what string, fn func(bot *tgbotapi.BotAPI) error) error {
	var pauses *backoff.Backoff // for a 429 without retry_after
	for attempt := 0; ; attempt++ {
		err := fn(c.botFor(ctx))
		if err == nil {
			return nil
		}
		var te *tgbotapi.Error
		if errors.As(err, &te) && te.Code == http.StatusTooManyRequests && attempt < maxRetries {
			wait := time.Duration(te.RetryAfter) * time.Second
			if wait <= 0 {
				if pauses == nil {
					pauses = backoff.New(time.Second, maxRetryWait)
				}
				wait = pauses.Next()
			}
			if wait > maxRetryWait {
				return fmt.Errorf("telegram: %s: rate limited for %s: %w", what, wait, err)
			}
			c.log.Warn("rate limited by Telegram; waiting", "op", what, "retry_after", wait, "attempt", attempt+1)
			if err := c.sleep(ctx, wait); err != nil {
				return fmt.Errorf("telegram: %s: %w", what, err)
			}
			continue
		}
		return c.classify(what, err)
	}
}

// once makes one call for the broker's outbox (Post, Update, Remind).
// The outbox paces its calls, so a 429 is not waited out here: it comes
// back as broker.RetryAfter with Telegram's retry_after, and the outbox
// sends again on a pacing slot after it. A call resent from here would
// take the turn of a paced one, which would be refused in its turn.
func (c *Channel) once(ctx context.Context, what string, fn func(bot *tgbotapi.BotAPI) error) error {
	err := fn(c.botFor(ctx))
	if err == nil {
		return nil
	}
	var te *tgbotapi.Error
	if errors.As(err, &te) && te.Code == http.StatusTooManyRequests {
		return broker.RetryAfter(time.Duration(te.RetryAfter)*time.Second, c.classify(what, err))
	}
	return c.classify(what, err)
}

// classify redacts err and wraps failures that retrying cannot fix with
// broker.Permanent.
func (c *Channel) classify(what string, err error) error {
	err = c.redact(err)
	var te *tgbotapi.Error
	if errors.As(err, &te) {
		desc := strings.ToLower(te.Message)
		switch {
		case te.Code == http.StatusForbidden, te.Code == http.StatusUnauthorized,
			te.Code == http.StatusBadRequest && strings.Contains(desc, "chat not found"):
			return broker.Permanent(fmt.Errorf("telegram: %s: %w", what, err))
		case te.MigrateToChatID != 0:
			return broker.Permanent(fmt.Errorf("telegram: %s: the group became a supergroup with chat id %d; use that id in the route: %w", what, te.MigrateToChatID, err))
		}
	}
	return fmt.Errorf("telegram: %s: %w", what, err)
}

// redact removes the bot token from err: the library's transport errors
// carry the request URL, which holds the token.
func (c *Channel) redact(err error) error {
	if err == nil || c.token == "" || !strings.Contains(err.Error(), c.token) {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue == err {
		cp := *ue
		cp.URL = strings.ReplaceAll(cp.URL, c.token, "<token>")
		if !strings.Contains(cp.Error(), c.token) {
			return &cp
		}
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.token, "<token>"))
}

// isNotModified reports Telegram's answer to an edit that changes nothing,
// which means the message already shows what we wanted.
func isNotModified(err error) bool {
	var te *tgbotapi.Error
	return errors.As(err, &te) && te.Code == http.StatusBadRequest && strings.Contains(te.Message, "message is not modified")
}

// send sends a message and returns it.
func (c *Channel) send(ctx context.Context, what string, m tgbotapi.Chattable) (tgbotapi.Message, error) {
	var out tgbotapi.Message
	err := c.call(ctx, what, func(bot *tgbotapi.BotAPI) error {
		var err error
		out, err = bot.Send(m)
		return err
	})
	return out, err
}

// request makes a call whose result is not a message; an edit that
// changes nothing counts as done.
func (c *Channel) request(ctx context.Context, what string, m tgbotapi.Chattable) error {
	return c.call(ctx, what, func(bot *tgbotapi.BotAPI) error {
		_, err := bot.Request(m)
		if isNotModified(err) {
			return nil
		}
		return err
	})
}

// makeRequest calls a method by name with raw parameters.
func (c *Channel) makeRequest(ctx context.Context, method string, p tgbotapi.Params) error {
	return c.call(ctx, method, func(bot *tgbotapi.BotAPI) error {
		_, err := bot.MakeRequest(method, p)
		return err
	})
}

// sendOnce is send for the outbox: one call, a 429 returned (see once).
func (c *Channel) sendOnce(ctx context.Context, what string, m tgbotapi.Chattable) (tgbotapi.Message, error) {
	var out tgbotapi.Message
	err := c.once(ctx, what, func(bot *tgbotapi.BotAPI) error {
		var err error
		out, err = bot.Send(m)
		return err
	})
	return out, err
}

// requestOnce is request for the outbox: one call, a 429 returned (see
// once).
func (c *Channel) requestOnce(ctx context.Context, what string, m tgbotapi.Chattable) error {
	return c.once(ctx, what, func(bot *tgbotapi.BotAPI) error {
		_, err := bot.Request(m)
		if isNotModified(err) {
			return nil
		}
		return err
	})
}

// self returns the bot's own user as getMe reported it, or the zero User
// before identify has succeeded.
func (c *Channel) self() tgbotapi.User {
	if u := c.me.Load(); u != nil {
		return *u
	}
	return tgbotapi.User{}
}

// identify asks Telegram who the bot is (getMe), once it has succeeded:
// messages are read against the bot's username and id (a command for
// another bot in the group, a reply to the bot). A wrong token is a
// permanent failure that names the variable holding it.
func (c *Channel) identify(ctx context.Context) error {
	if c.me.Load() != nil {
		return nil
	}
	var u tgbotapi.User
	err := c.call(ctx, "getMe", func(bot *tgbotapi.BotAPI) (err error) {
		u, err = bot.GetMe()
		return err
	})
	if err != nil {
		return fmt.Errorf("%w (getMe at %s; check %s)", err, c.cfg.APIURL, c.cfg.TokenEnv)
	}
	if c.me.CompareAndSwap(nil, &u) {
		c.log.Info("telegram bot ready", "bot", "@"+u.UserName, "mode", c.cfg.Mode)
	}
	return nil
}
