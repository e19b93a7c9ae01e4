package cmdline

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
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
)

// ClientEnv is the paragraph on the environment in the help of the
// client commands.
const ClientEnv = `It talks to $ASKBRIDGE_SERVER (default http://127.0.0.1:8377) with the
agent key in $ASKBRIDGE_KEY.`

// defaultConnectTimeout is how long a blocking command tries to reach
// the bridge before it gives up.
const defaultConnectTimeout = 30 * time.Second

func NewClient(responder bool) *client.Client {
	key := os.Getenv("ASKBRIDGE_KEY")
	if responder {
		if k := os.Getenv("ASKBRIDGE_RESPONDER_KEY"); k != "" {
			key = k
		}
	}
	return client.New(os.Getenv("ASKBRIDGE_SERVER"), key)
}

// AddConnectTimeout adds --connect-timeout to a blocking command.
func AddConnectTimeout(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "connect-timeout", defaultConnectTimeout,
		"give up (exit 1) when the bridge cannot be reached for this long; 0 tries until interrupted (a lost connection is re-attached regardless)")
}

// BlockingClient is the client of a command that waits on the bridge: it
// says on standard error when the bridge cannot be reached, and gives up
// after connectTimeout while it has never reached it.
func BlockingClient(cmd *cobra.Command, connectTimeout time.Duration) *client.Client {
	c := NewClient(false)
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
	case errors.As(err, &ae) && ae.NotBridge:
		return ae.Message
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

// ClientError turns an error of the client into what a person reads,
// with the command's exit code: 2 for the server's 400s and 413s, else 1.
// notFoundHint is added to 404 answers. The client's own errors start
// with "askbridge: " for programs that use it; a person at the command
// line knows what they ran, and reads the command's name instead.
func ClientError(err error, notFoundHint string) error {
	var ae *client.APIError
	var ue *client.UnreachableError
	var ce *client.ConnError
	var addr *client.AddressError
	var urlErr *url.Error
	switch {
	case errors.Is(err, context.Canceled):
		return Exit(ExitFailure, errors.New("interrupted"))
	case errors.As(err, &addr):
		return Exit(ExitFailure, addressError(addr))
	case errors.As(err, &ae) && ae.NotBridge:
		return Exit(ExitFailure, fmt.Errorf("%s: is $ASKBRIDGE_SERVER the bridge's address?", strings.TrimSuffix(ae.Message, " (check the address)")))
	case errors.As(err, &ue):
		return Exit(ExitFailure, fmt.Errorf("%s; gave up after %s", withoutPrefix(ue.Err), ue.After.Round(100*time.Millisecond)))
	case errors.As(err, &ce):
		return Exit(ExitFailure, errors.New(withoutPrefix(ce)))
	case errors.As(err, &ae):
		msg := ae.Message
		if ae.Code == "closed" && ae.State != "" {
			// The bridge's message may carry its store's words; the
			// state says all a person needs.
			msg = "the question is already " + statusWords(ae.State)
		}
		switch ae.StatusCode {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return Exit(ExitBadInput, errors.New(msg))
		case http.StatusNotFound:
			if notFoundHint != "" {
				msg += " " + notFoundHint
			}
		case http.StatusUnauthorized:
			msg += " (the key comes from $ASKBRIDGE_KEY, or $ASKBRIDGE_RESPONDER_KEY for answer and decline)"
		}
		return Exit(ExitFailure, errors.New(msg))
	case errors.As(err, &urlErr):
		server := urlErr.URL
		if u, perr := url.Parse(urlErr.URL); perr == nil {
			server = u.Scheme + "://" + u.Host
		}
		return Exit(ExitFailure, fmt.Errorf("cannot reach the bridge at %s (%s)", server, reachCause(err)))
	}
	return Exit(ExitFailure, errors.New(withoutPrefix(err)))
}

// addressError says what is wrong with $ASKBRIDGE_SERVER, and what to
// set it to.
func addressError(e *client.AddressError) error {
	if e.Hint != "" {
		return fmt.Errorf("ASKBRIDGE_SERVER is %q, which has no scheme: set it to %s", e.Server, e.Hint)
	}
	return fmt.Errorf("ASKBRIDGE_SERVER is %q, which is not an http:// or https:// URL: set it to the bridge's address, such as %s", e.Server, client.DefaultServer)
}

// withoutPrefix is err's text without the client's "askbridge: ".
func withoutPrefix(err error) string {
	return strings.TrimPrefix(err.Error(), "askbridge: ")
}

// ListHint is said with a 404 for a question id.
const ListHint = `Run "bridge list" to see open questions' ids.`

// PrintJSON prints v as indented JSON, with the characters a terminal
// would act on escaped.
func PrintJSON(w io.Writer, v any) {
	enc := json.NewEncoder(JSONTerminal{W: w})
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// PrintResult prints the result JSON and returns the exit code of its
// status as an error (nil for 0).
func PrintResult(w io.Writer, res *client.Result) error {
	PrintJSON(w, res)
	if code := StatusExit(res.Status); code != ExitOK {
		return Exit(code, nil)
	}
	return nil
}

func StatusExit(s client.Status) int {
	switch s {
	case client.StatusAnswered, client.StatusPending:
		return ExitOK
	case client.StatusDeclined:
		return ExitDeclined
	case client.StatusTimedOut:
		return ExitTimedOut
	case client.StatusCancelled:
		return ExitCancelled
	case client.StatusUnsupported:
		return ExitUnsupported
	}
	return ExitFailure
}

// EnvSwitch reads a boolean environment variable: 1, true, yes or on
// (any case) turn it on; unset, empty or anything else leave it off.
func EnvSwitch(name string) bool {
	v := os.Getenv(name)
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return strings.EqualFold(v, "yes") || strings.EqualFold(v, "on")
}
