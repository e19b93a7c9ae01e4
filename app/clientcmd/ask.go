package clientcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/jsonerr"
)

// newAskCmd is `bridge ask`: ask and wait, printing the result JSON.
func newAskCmd() *cobra.Command {
	var (
		q                         client.Question
		options, defaults, people []string
		noOther, pending, jsonOut bool
		request, field            string
		connectTimeout            time.Duration
	)
	cmd := &cobra.Command{
		Use:   "ask [flags] QUESTION...",
		Short: "Ask people a question and wait for the result",
		Long: `Ask people a question and wait until it resolves, then print the result as
JSON on standard output; the exit code says how it ended. The words of
QUESTION are joined with spaces.

After a lost connection ask re-attaches to the same question (same session
and tool-call id) until it resolves.

On a terminal, standard error shows while ask waits the question's id, the
web inbox's link, where the question was posted and how long ask has
waited, in colour unless NO_COLOR is set; on a pipe or in a file it shows
none of it.

` + cmdline.ClientEnv,
		Example: `  bridge ask --header Database --option "Postgres|a server" --option "SQLite|one file" \
    --default SQLite --timeout 10m "Which database should the service use?"
  bridge ask --header Port --field port:integer:1024..65535 --default 8080 "Which port should the service listen on?"
  bridge ask --pending "Rename the repository?"
  bridge ask --request question.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut && request == "" && len(args) == 1 && looksLikeFile(args[0]) {
				// `ask --json FILE` read a request file before --json
				// meant JSON output everywhere; it still does.
				request, args = args[0], nil
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: reading the request from %s (--json FILE is the old spelling of --request FILE)\n", cmd.CommandPath(), request)
			}
			if request != "" {
				if len(args) > 0 {
					return cmdline.UsageErr("give the question either in --request or as arguments, not both")
				}
				if err := readJSON(request, cmd.InOrStdin(), &q); err != nil {
					return cmdline.Exit(cmdline.ExitBadInput, err)
				}
			} else {
				q.Question = strings.Join(args, " ")
				if strings.TrimSpace(q.Question) == "" {
					return cmdline.UsageErr(`give the question, e.g. bridge ask --option Postgres --option SQLite "Which database?"`)
				}
				for _, o := range options {
					label, desc, _ := strings.Cut(o, "|")
					q.Options = append(q.Options, client.Option{Label: strings.TrimSpace(label), Description: strings.TrimSpace(desc)})
				}
				q.Default, q.Responders = defaults, people
				if noOther {
					f := false
					q.Other = &f
				}
				if field != "" {
					fd, err := parseField(field, q.MultiSelect)
					if err != nil {
						return cmdline.UsageErr("%v", err)
					}
					q.Field, q.MultiSelect = fd, false
				}
			}
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			if pending {
				q.Wait = "0s"
				res, err := cmdline.NewClient(false).Submit(ctx, q)
				if err != nil {
					return cmdline.ClientError(err, "")
				}
				if !res.Terminal() {
					asked := map[string]any{"id": res.ID, "status": res.Status, "expires_at": res.ExpiresAt}
					if len(res.Warnings) > 0 {
						asked["warnings"] = res.Warnings
					}
					cmdline.PrintJSON(out, asked)
					return nil
				}
				return cmdline.PrintResult(out, res)
			}
			return askAndWait(cmd, cmdline.BlockingClient(cmd, connectTimeout), q)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&options, "option", nil, "an option `LABEL[|DESCRIPTION]` (repeat 2–4 times; none: free text)")
	f.StringVar(&q.Header, "header", "", "a short chip shown above the question (≤ 16 characters)")
	f.BoolVar(&q.MultiSelect, "multi", false, "allow several options to be chosen")
	f.BoolVar(&noOther, "no-other", false, "forbid free-text answers")
	f.StringVar(&field, "field", "", fieldHelp)
	f.StringArrayVar(&defaults, "default", nil, "the `ANSWER` used when the question times out (repeat for multi-select)")
	f.StringVar(&q.Timeout, "timeout", "", "how long people have to answer, e.g. 30m (10s–7d; default 30m)")
	f.StringVar(&q.Route, "route", "", "the route to post to (default: default)")
	f.StringVar(&q.Context, "context", "", "context shown with the question")
	f.StringVar(&q.SessionID, "session", "", "the asking session's id (default: $ASKBRIDGE_SESSION_ID, else random)")
	f.StringVar(&q.ToolCallID, "tool-call-id", "", "idempotency key within the session (default: random)")
	f.StringVar(&q.CallbackURL, "callback-url", "", "POST the result to this `URL` when the question resolves")
	f.StringVar(&q.Lease, "lease", "", "cancel the question when this client is gone this long (5s–7d; default 1m while ask waits, none with --pending)")
	f.StringArrayVar(&people, "responder", nil, "a person allowed to answer, `[CHANNEL:]USER-ID` (repeat)")
	f.BoolVar(&pending, "pending", false, "print the question's id as JSON and return at once")
	f.StringVar(&request, "request", "", "read the whole request as JSON from `FILE` (- for standard input)")
	f.BoolVar(&jsonOut, "json", false, "print the result as JSON (always the case: ask prints JSON)")
	cmdline.AddConnectTimeout(cmd, &connectTimeout)
	cmdline.WithExitCodes(cmd, append(cmdline.ResultExitCodes("answered (or still pending, with --pending)"), cmdline.ExitInterrupted, "interrupted (Ctrl-C or SIGTERM) while waiting: the question is cancelled")...)
	return cmd
}

// looksLikeFile reports whether a lone question word is rather a request
// file, as `ask --json FILE` reads one.
func looksLikeFile(s string) bool {
	if s == "-" {
		return true
	}
	st, err := os.Stat(s)
	return err == nil && st.Mode().IsRegular()
}

func readJSON(name string, stdin io.Reader, v any) error {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return fmt.Errorf("--request: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the JSON object")
	}
	if err != nil {
		what := "the file " + name
		if name == "-" {
			what = "standard input"
		}
		return errors.New(jsonerr.Describe(what, data, v, err).Message)
	}
	return nil
}
