package slack

import (
	"errors"
	"net/http"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
)

// permanentErrors are Slack error codes that retrying cannot fix.
var permanentErrors = map[string]bool{
	"channel_not_found":   true,
	"not_in_channel":      true,
	"is_archived":         true,
	"invalid_auth":        true,
	"account_inactive":    true,
	"token_revoked":       true,
	"token_expired":       true,
	"not_authed":          true,
	"missing_scope":       true,
	"no_permission":       true,
	"restricted_action":   true,
	"ekm_access_denied":   true,
	"user_not_found":      true,
	"invalid_blocks":      true,
	"msg_too_long":        true,
	"message_not_found":   true,
	"cant_update_message": true,
	"edit_window_closed":  true,
}

// classify marks err permanent when Slack's error code says so, and a
// 429 as broker.RetryAfter with the wait Slack's Retry-After names (zero
// when it names none): the outbox's calls are made once, and the outbox
// sends again on a pacing slot after the wait.
func classify(err error) error {
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) && permanentErrors[se.Err] {
		return broker.Permanent(err)
	}
	var rl *slackapi.RateLimitedError
	if errors.As(err, &rl) {
		return broker.RetryAfter(rl.RetryAfter, err)
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) && sc.Code == http.StatusTooManyRequests ||
		errors.As(err, &se) && (se.Err == "ratelimited" || se.Err == "rate_limited") {
		return broker.RetryAfter(0, err)
	}
	return err
}
