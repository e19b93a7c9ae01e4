package callback

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// outcome is what one attempt came to.
type outcome struct {
	status     int           // HTTP status, 0 when no answer came
	retryAfter time.Duration // from a Retry-After header
	err        error         // why it did not succeed
	permanent  bool          // retrying cannot help
}

// attempt sends one delivery and records the outcome.
func (d *Deliverer) attempt(ctx context.Context, del broker.Delivery) {
	log := d.log.With("delivery_id", del.ID, "question_id", del.QuestionID, "url", redact(del.URL))
	if err := d.cfg.Policy.Check(del.URL); err != nil {
		d.finish(del, broker.DeliveryFailed, "refused: "+err.Error(), log)
		return
	}
	secret := d.cfg.secret(del.Agent)
	if secret == "" {
		d.finish(del, broker.DeliveryFailed, fmt.Sprintf("no callback secret is configured for agent %q (callbacks.secrets or callbacks.secret_env)", del.Agent), log)
		return
	}
	q, err := d.st.Get(ctx, del.QuestionID)
	if errors.Is(err, broker.ErrNotFound) {
		d.finish(del, broker.DeliveryFailed, "the question no longer exists", log)
		return
	}
	if err != nil {
		if ctx.Err() != nil {
			// Shutting down before the attempt: hand it back at once.
			del.NextAt = d.cfg.Now()
			d.record(del)
			return
		}
		// The store is unreachable: the claim's hold runs out and the
		// delivery becomes due again.
		log.Warn("callback: read question", "err", err)
		return
	}
	body, err := json.Marshal(q.Result())
	if err != nil {
		d.finish(del, broker.DeliveryFailed, "encode result: "+err.Error(), log)
		return
	}
	del.Attempts++
	out := d.send(ctx, del, body, secret)
	if ctx.Err() != nil {
		// Shutting down mid-attempt: not the receiver's fault. Make it
		// due at once for whichever instance runs next.
		del.Attempts--
		del.NextAt = d.cfg.Now()
		d.record(del)
		return
	}
	switch {
	case out.err == nil:
		del.LastError = ""
		d.finish(del, broker.DeliveryDelivered, "", log)
	case out.permanent:
		d.finish(del, broker.DeliveryFailed, out.err.Error(), log)
	default:
		d.retry(del, out, log)
	}
}

// retry schedules the next attempt, or gives up when it would fall after
// the window.
func (d *Deliverer) retry(del broker.Delivery, out outcome, log *slog.Logger) {
	now := d.cfg.Now()
	wait := max(d.backoff(del.Attempts), out.retryAfter)
	next := now.Add(wait)
	if end := del.CreatedAt.Add(d.cfg.Window); next.After(end) {
		d.finish(del, broker.DeliveryFailed,
			fmt.Sprintf("gave up after %d attempts in %s: %v", del.Attempts, d.cfg.Window, out.err), log)
		return
	}
	del.State, del.NextAt, del.LastError, del.UpdatedAt = broker.DeliveryPending, next, out.err.Error(), now
	d.m.retried.Inc()
	log.Info("callback: attempt failed; will retry", "attempt", del.Attempts, "err", out.err, "in", wait.Round(time.Millisecond))
	d.record(del)
}

// backoff is the pause after attempt n (1-based): drawn at random between
// BaseBackoff and min(MaxBackoff, BaseBackoff·2^(n-1)) ("full jitter"
// above a floor, so that attempts are never closer than BaseBackoff).
func (d *Deliverer) backoff(n int) time.Duration {
	base, ceil := d.cfg.BaseBackoff, d.cfg.BaseBackoff
	for i := 1; i < n && ceil < d.cfg.MaxBackoff; i++ {
		ceil *= 2
	}
	ceil = min(ceil, d.cfg.MaxBackoff)
	if ceil <= base {
		return base
	}
	return base + rand.N(ceil-base+1)
}

// finish records a final state.
func (d *Deliverer) finish(del broker.Delivery, state, lastErr string, log *slog.Logger) {
	del.State, del.UpdatedAt = state, d.cfg.Now()
	if lastErr != "" {
		del.LastError = lastErr
	}
	switch state {
	case broker.DeliveryDelivered:
		d.m.delivered.Inc()
		log.Info("callback delivered", "attempt", del.Attempts)
	case broker.DeliveryFailed:
		d.m.failed.Inc()
		log.Warn("callback failed; not retrying", "attempts", del.Attempts, "err", lastErr)
	}
	d.record(del)
}

// record writes del to the store, even while shutting down.
func (d *Deliverer) record(del broker.Delivery) {
	if del.UpdatedAt.IsZero() {
		del.UpdatedAt = d.cfg.Now()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.st.UpdateDelivery(ctx, del); err != nil {
		d.log.Error("callback: record delivery", "delivery_id", del.ID, "question_id", del.QuestionID, "err", err)
	}
}

// send makes one signed POST and classifies the answer.
func (d *Deliverer) send(ctx context.Context, del broker.Delivery, body []byte, secret string) outcome {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, bytes.NewReader(body))
	if err != nil {
		return outcome{err: fmt.Errorf("build request: %w", err), permanent: true}
	}
	now := d.cfg.Now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "askbridge-callback/1")
	req.Header.Set(HeaderDelivery, del.ID)
	req.Header.Set(HeaderQuestion, del.QuestionID)
	req.Header.Set(HeaderAttempt, strconv.Itoa(del.Attempts))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(secret, now, body))
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		return outcome{err: fmt.Errorf("POST %s: %w", redact(del.URL), unwrapURL(err))}
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return classify(resp, snippet, now)
}

// classify turns an HTTP answer into an outcome: 2xx delivered; 408, 429
// and 5xx retried (after Retry-After when given); anything else final.
func classify(resp *http.Response, snippet []byte, now time.Time) outcome {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return outcome{status: code}
	}
	msg := fmt.Sprintf("receiver answered %d %s", code, http.StatusText(code))
	if s := strings.TrimSpace(string(snippet)); s != "" {
		msg += ": " + truncate(s, 200)
	}
	out := outcome{status: code, err: errors.New(msg)}
	switch {
	case code >= 300 && code < 400:
		out.err = fmt.Errorf("receiver answered %d %s (redirects are not followed; configure the final URL)", code, http.StatusText(code))
		out.permanent = true
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		out.retryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	default:
		out.permanent = true
	}
	return out
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// redact drops credentials, query and fragment from a URL for logs and
// errors: they may hold tokens.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// unwrapURL drops the *url.Error wrapper, whose text repeats the full URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
