package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
)

// clientEnv is the paragraph on the environment in the help of the
// client commands.
const clientEnv = `It talks to $ASKBRIDGE_SERVER (default http://127.0.0.1:8377) with the
agent key in $ASKBRIDGE_KEY.`

// defaultConnectTimeout is how long a blocking command tries to reach
// the bridge before it gives up.
const defaultConnectTimeout = 30 * time.Second

func newClient(responder bool) *client.Client {
	key := os.Getenv("ASKBRIDGE_KEY")
	if responder {
		if k := os.Getenv("ASKBRIDGE_RESPONDER_KEY"); k != "" {
			key = k
		}
	}
	return client.New(os.Getenv("ASKBRIDGE_SERVER"), key)
}

// addConnectTimeout adds --connect-timeout to a blocking command.
func addConnectTimeout(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "connect-timeout", defaultConnectTimeout,
		"give up (exit 1) when the bridge cannot be reached for this long; 0 tries until interrupted (a lost connection is re-attached regardless)")
}

// blockingClient is the client of a command that waits on the bridge: it
// says on standard error when the bridge cannot be reached, and gives up
// after connectTimeout while it has never reached it.
func blockingClient(cmd *cobra.Command, connectTimeout time.Duration) *client.Client {
	c := newClient(false)
	c.ConnectTimeout = connectTimeout
	stderr, name := cmd.ErrOrStderr(), cmd.CommandPath()
	c.OnRetry = func(r client.RetryInfo) {
		if r.Attempt != 1 {
			return
		}
		switch {
		case r.Reached:
			fmt.Fprintf(stderr, "%s: lost the connection to %s (%s); reconnecting\n", name, r.Server, reachCause(r.Err))
		case connectTimeout > 0:
			fmt.Fprintf(stderr, "%s: cannot reach %s (%s); retrying for up to %s, --connect-timeout to change\n", name, r.Server, reachCause(r.Err), connectTimeout)
		default:
			fmt.Fprintf(stderr, "%s: cannot reach %s (%s); retrying until interrupted\n", name, r.Server, reachCause(r.Err))
		}
	}
	return c
}

// reachCause is the short reason a request did not get through:
// "connection refused", "no such host", "HTTP 503: …".
func reachCause(err error) string {
	var ae *client.APIError
	var se *os.SyscallError
	var dnsErr *net.DNSError
	var oe *net.OpError
	switch {
	case errors.As(err, &ae):
		return fmt.Sprintf("HTTP %d: %s", ae.StatusCode, ae.Message)
	case errors.As(err, &se):
		return se.Err.Error()
	case errors.As(err, &dnsErr):
		return "no such host " + dnsErr.Name
	case errors.As(err, &oe):
		return oe.Err.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// clientError turns an error of the client into what a person reads,
// with the command's exit code: 2 for the server's 400s and 413s, else 1.
// notFoundHint is added to 404 answers. The client's own errors start
// with "askbridge: " for programs that use it; a person at the command
// line knows what they ran, and reads the command's name instead.
func clientError(err error, notFoundHint string) error {
	var ae *client.APIError
	var ue *client.UnreachableError
	var ce *client.ConnError
	var urlErr *url.Error
	switch {
	case errors.Is(err, context.Canceled):
		return exitCode(exitFailure, errors.New("interrupted"))
	case errors.As(err, &ue):
		return exitCode(exitFailure, fmt.Errorf("%s; gave up after %s", withoutPrefix(ue.Err), ue.After.Round(100*time.Millisecond)))
	case errors.As(err, &ce):
		return exitCode(exitFailure, errors.New(withoutPrefix(ce)))
	case errors.As(err, &ae):
		msg := ae.Message
		switch ae.StatusCode {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return exitCode(exitBadInput, errors.New(msg))
		case http.StatusNotFound:
			if notFoundHint != "" {
				msg += " " + notFoundHint
			}
		case http.StatusUnauthorized:
			msg += " (the key comes from $ASKBRIDGE_KEY, or $ASKBRIDGE_RESPONDER_KEY for answer and decline)"
		}
		return exitCode(exitFailure, errors.New(msg))
	case errors.As(err, &urlErr):
		server := urlErr.URL
		if u, perr := url.Parse(urlErr.URL); perr == nil {
			server = u.Scheme + "://" + u.Host
		}
		return exitCode(exitFailure, fmt.Errorf("cannot reach the bridge at %s (%s)", server, reachCause(err)))
	}
	return exitCode(exitFailure, errors.New(withoutPrefix(err)))
}

// withoutPrefix is err's text without the client's "askbridge: ".
func withoutPrefix(err error) string {
	return strings.TrimPrefix(err.Error(), "askbridge: ")
}

// listHint is said with a 404 for a question id.
const listHint = `Run "bridge list" to see open questions' ids.`

// printJSON prints v as indented JSON, with the characters a terminal
// would act on escaped.
func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(jsonTerminal{w})
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// printResult prints the result JSON and returns the exit code of its
// status as an error (nil for 0).
func printResult(w io.Writer, res *client.Result) error {
	printJSON(w, res)
	if code := statusExit(res.Status); code != exitOK {
		return exitCode(code, nil)
	}
	return nil
}

func statusExit(s client.Status) int {
	switch s {
	case client.StatusAnswered, client.StatusPending:
		return exitOK
	case client.StatusDeclined:
		return exitDeclined
	case client.StatusTimedOut:
		return exitTimedOut
	case client.StatusCancelled:
		return exitCancelled
	case client.StatusUnsupported:
		return exitUnsupported
	}
	return exitFailure
}
