package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/bwmarrin/discordgo"
)

// call runs one REST request within ctx. A 429 is waited out (its
// retry_after, within ctx) and the request sent again, up to maxRetries
// times, so a rate limit delays a message but never loses it. discordgo's
// bucket rate limiter paces requests before they are sent.
func (c *Channel) call(ctx context.Context, req func(opts ...discordgo.RequestOption) error) error {
	for attempt := 0; ; attempt++ {
		err := req(discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
		var rl *discordgo.RateLimitError
		if !errors.As(err, &rl) || attempt >= c.maxRetries {
			return err
		}
		wait := rl.RetryAfter
		if wait <= 0 {
			wait = 100 * time.Millisecond
		}
		c.log.Info("rate limited; retrying", "url_path", pathOf(rl.URL), "retry_after", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (while waiting out a rate limit: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// Discord's JSON error codes that retrying cannot fix.
var permanentCodes = map[int]bool{
	discordgo.ErrCodeUnknownChannel:                   true,
	discordgo.ErrCodeUnknownMessage:                   true,
	discordgo.ErrCodeMissingAccess:                    true,
	discordgo.ErrCodeMissingPermissions:               true,
	discordgo.ErrCodeCannotSendMessagesToThisUser:     true,
	discordgo.ErrCodeCannotSendMessagesInVoiceChannel: true,
}

// classify wraps failures that retrying cannot fix (unknown channel or
// message, missing access or permissions, DMs closed, a bad token, a
// request Discord refuses as invalid) with broker.Permanent, and a 429
// still refused after call's retries with broker.RetryAfter and Discord's
// retry_after, so that the outbox waits that long before the next attempt.
func classify(err error) error {
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) {
		return broker.RetryAfter(rl.RetryAfter, err)
	}
	var rest *discordgo.RESTError
	if errors.As(err, &rest) {
		if rest.Message != nil && permanentCodes[rest.Message.Code] {
			return broker.Permanent(err)
		}
		switch rest.Response.StatusCode {
		case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return broker.Permanent(err)
		}
	}
	if errors.Is(err, discordgo.ErrUnauthorized) {
		return broker.Permanent(err)
	}
	return err
}

// pathOf returns the path of a request URL for logs, with interaction
// and webhook tokens (long path segments) left out.
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	parts := strings.Split(u.Path, "/")
	for i, p := range parts {
		if len(p) > 32 {
			parts[i] = "[token]"
		}
	}
	return strings.Join(parts, "/")
}

// rewriteTransport sends requests meant for discord.com to base instead
// (a proxy, or a fake server in tests). discordgo builds its endpoint URLs
// once, from https://discord.com, so rewriting at the transport is the one
// place that redirects every call.
func rewriteTransport(base *url.URL) http.RoundTripper {
	if base.Scheme == "https" && base.Host == "discord.com" {
		return http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host == "discord.com" {
			r = r.Clone(r.Context())
			r.URL.Scheme, r.URL.Host = base.Scheme, base.Host
			r.Host = base.Host
		}
		return http.DefaultTransport.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
