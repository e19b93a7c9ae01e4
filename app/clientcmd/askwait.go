package clientcmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// askLease is the lease of a question `bridge ask` waits for, unless
// --lease says otherwise: killed without a chance to cancel it (kill -9,
// a lost machine), the bridge cancels it once the lease lapses.
const askLease = time.Minute

// ReasonInterrupted is the reason of a question whose `bridge ask` was
// interrupted, as people see it on every copy.
const ReasonInterrupted = "the asker stopped waiting (interrupted)"

// askAndWait asks q and waits for its result. The question holds a lease
// that the wait renews. Interrupted (Ctrl-C, SIGTERM), ask cancels the
// question, says so, and exits 130.
func askAndWait(cmd *cobra.Command, c *client.Client, q client.Question) error {
	if q.SessionID == "" {
		q.SessionID = os.Getenv("ASKBRIDGE_SESSION_ID")
	}
	if q.SessionID == "" {
		q.SessionID = c.SessionID
	}
	if q.ToolCallID == "" {
		q.ToolCallID = client.NewToolCallID()
	}
	if q.Lease == "" {
		q.Lease = askLease.String()
	}
	stop := func() {}
	errw := cmd.ErrOrStderr()
	term, onTerm := cmdline.TerminalOf(errw)
	// What may keep the question from an answer is said at once, on a
	// terminal or not: the ask goes on waiting.
	c.OnWarnings = func(r client.Result) {
		for _, w := range r.Warnings {
			fmt.Fprintf(errw, "%s %s\n", term.Paint("33", "warning:"), cmdline.Printable(w, false))
		}
	}
	if onTerm {
		stop = showProgress(errw, term, c, q)
	}
	res, err := c.AskRaw(cmd.Context(), q)
	stop()
	if err == nil {
		return cmdline.PrintResult(cmd.OutOrStdout(), res)
	}
	if cmd.Context().Err() == nil {
		return cmdline.ClientError(err, "")
	}
	return cmdline.Exit(cmdline.ExitInterrupted, errors.New(cancelAsked(c, q)))
}

// cancelAsked cancels the question asked under q's session and tool-call
// id, if the bridge has it pending, and says what became of it.
func cancelAsked(c *client.Client, q client.Question) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	qs, err := c.List(ctx, q.SessionID, client.StatusPending)
	if err != nil {
		return fmt.Sprintf("interrupted; could not reach the bridge to cancel the question (%v): it is cancelled when its lease (%s) lapses", err, q.Lease)
	}
	for _, r := range qs {
		if r.ToolCallID != q.ToolCallID {
			continue
		}
		_, err := c.Cancel(ctx, r.ID, ReasonInterrupted)
		var ae *client.APIError
		switch {
		case err == nil:
			return fmt.Sprintf("interrupted; question %s cancelled", r.ID)
		case errors.As(err, &ae) && ae.StatusCode == http.StatusConflict:
			return fmt.Sprintf("interrupted; question %s had already ended", r.ID)
		}
		return fmt.Sprintf("interrupted; could not cancel question %s (%v): it is cancelled when its lease (%s) lapses", r.ID, err, q.Lease)
	}
	return "interrupted; no question of this ask is pending"
}
