package cmdline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/askbridge/askbridge/client"
)

// statusWords is a status as a sentence says it: "timed out".
func statusWords(s client.Status) string {
	return strings.ReplaceAll(string(s), "_", " ")
}

// whoText names the person behind r: their name in the bridge's people,
// else the account's name or id, with the channel.
func whoText(r *client.Responder) string {
	if r == nil {
		return "someone"
	}
	name := r.User
	switch {
	case r.Person != nil && r.Person.Name != "":
		name = r.Person.Name
	case r.Person != nil:
		name = r.Person.ID
	case r.Name != "":
		name = r.Name
	}
	if name == "" {
		return "someone on " + r.Channel
	}
	return name + " (" + r.Channel + ")"
}

// clockText is t in this machine's zone: "18:17 UTC" today, "Dec 2
// 18:17 UTC" on another day.
func clockText(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04 MST")
	}
	return t.Format("Jan 2 15:04 MST")
}

// ClosedText says how question r ended, for an action on it that
// changed nothing: "question k7m2qx is already answered by ana (slack) at
// 18:17 UTC".
func ClosedText(r *client.Result, now time.Time) string {
	at := r.ExpiresAt
	if r.ResolvedAt != nil {
		at = *r.ResolvedAt
	}
	s := fmt.Sprintf("question %s is already %s", r.ID, statusWords(r.Status))
	switch r.Status {
	case client.StatusAnswered, client.StatusDeclined:
		s += " by " + whoText(r.AnsweredBy)
	case client.StatusTimedOut:
		at = r.ExpiresAt
	}
	s += " at " + clockText(at, now)
	if r.Reason != "" && r.Status != client.StatusAnswered {
		s += ": " + r.Reason
	}
	return s
}

// Closed turns the bridge's refusal to act on question id because it has
// ended (409 closed) into a sentence that says how and when it ended,
// read from the bridge; any other error is ClientError's, with notFoundHint.
func Closed(ctx context.Context, c *client.Client, id string, err error, notFoundHint string) error {
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusConflict || ae.Code != "closed" {
		return ClientError(err, notFoundHint)
	}
	if res, gerr := c.Get(ctx, id, 0); gerr == nil && res.Terminal() {
		return Exit(ExitFailure, errors.New(ClosedText(res, time.Now())))
	}
	return ClientError(err, notFoundHint)
}
