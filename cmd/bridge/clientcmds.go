package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/jsonerr"
)

func newClient(responder bool) *client.Client {
	key := os.Getenv("ASKBRIDGE_KEY")
	if responder {
		if k := os.Getenv("ASKBRIDGE_RESPONDER_KEY"); k != "" {
			key = k
		}
	}
	return client.New(os.Getenv("ASKBRIDGE_SERVER"), key)
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func runAsk(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var q client.Question
	var options, defaults, responders repeated
	var noOther, pending bool
	var jsonFile string
	fs.Var(&options, "option", `an option "Label" or "Label|Description" (repeat 2–4 times)`)
	fs.StringVar(&q.Header, "header", "", "a short chip shown above the question (≤ 16 characters)")
	fs.BoolVar(&q.MultiSelect, "multi", false, "allow several options to be chosen")
	fs.BoolVar(&noOther, "no-other", false, "forbid free-text answers")
	fs.Var(&defaults, "default", "the answer used when the question times out (repeat for multi-select)")
	fs.StringVar(&q.Timeout, "timeout", "", "how long people have to answer, e.g. 30m (10s–7d; default 30m)")
	fs.StringVar(&q.Route, "route", "", "the route to post to (default: default)")
	fs.StringVar(&q.Context, "context", "", "context shown with the question")
	fs.StringVar(&q.SessionID, "session", "", "the asking session's id")
	fs.StringVar(&q.ToolCallID, "tool-call-id", "", "idempotency key within the session (default: random)")
	fs.StringVar(&q.CallbackURL, "callback-url", "", "POST the result here when the question resolves")
	fs.StringVar(&q.Lease, "lease", "", "cancel the question when this client is gone this long, e.g. 60s")
	fs.Var(&responders, "responder", "a person allowed to answer ([channel:]user-id; repeat)")
	fs.BoolVar(&pending, "pending", false, "print the question id and return at once")
	fs.StringVar(&jsonFile, "json", "", "read the whole request as JSON from this file (- for standard input)")
	if err := fs.Parse(args); err != nil {
		return exitBadInput
	}
	if jsonFile != "" {
		if err := readJSON(jsonFile, stdin, &q); err != nil {
			fmt.Fprintln(stderr, "bridge ask:", err)
			return exitBadInput
		}
	} else {
		q.Question = strings.Join(fs.Args(), " ")
		if strings.TrimSpace(q.Question) == "" {
			fmt.Fprintln(stderr, `bridge ask: give the question, e.g. bridge ask --option Postgres --option SQLite "Which database?"`)
			return exitBadInput
		}
		for _, o := range options {
			label, desc, _ := strings.Cut(o, "|")
			q.Options = append(q.Options, client.Option{Label: strings.TrimSpace(label), Description: strings.TrimSpace(desc)})
		}
		q.Default, q.Responders = defaults, responders
		if noOther {
			f := false
			q.Other = &f
		}
	}
	ctx, cancel := signalContext()
	defer cancel()
	c := newClient(false)
	if pending {
		q.Wait = "0s"
		res, err := c.Submit(ctx, q)
		if err != nil {
			return fail(stderr, "ask", err)
		}
		if !res.Terminal() {
			enc := json.NewEncoder(jsonTerminal{stdout})
			enc.SetIndent("", "  ")
			_ = enc.Encode(map[string]any{"id": res.ID, "status": res.Status, "expires_at": res.ExpiresAt})
			return exitOK
		}
		return printResult(stdout, res)
	}
	res, err := c.AskRaw(ctx, q)
	if err != nil {
		return fail(stderr, "ask", err)
	}
	return printResult(stdout, res)
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
		return err
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

// printResult prints the result JSON and returns the exit code of its
// status.
func printResult(w io.Writer, res *client.Result) int {
	enc := json.NewEncoder(jsonTerminal{w})
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(res)
	return statusExit(res.Status)
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

// fail prints err and returns 2 for the server's 400s and 413s, else 1.
func fail(stderr io.Writer, cmd string, err error) int {
	// The client's errors start with "askbridge: " for programs that
	// use it; a person at the command line knows what they ran.
	fmt.Fprintf(stderr, "bridge %s: %s\n", cmd, printable(strings.TrimPrefix(err.Error(), "askbridge: "), true))
	var ae *client.APIError
	if errors.As(err, &ae) && (ae.StatusCode == http.StatusBadRequest || ae.StatusCode == http.StatusRequestEntityTooLarge) {
		return exitBadInput
	}
	return exitFailure
}

func runAnswer(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "bridge answer: usage: bridge answer ID CHOICE (2 | 1,3 | a label | other <text> | 1,3 other <text> | skip)")
		return exitBadInput
	}
	return sendCommand("answer", "/answer "+strings.Join(args, " "), stdout, stderr)
}

func runDecline(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, "bridge decline: usage: bridge decline ID [REASON...]")
		return exitBadInput
	}
	return sendCommand("decline", "/decline "+strings.Join(args, " "), stdout, stderr)
}

func sendCommand(name, text string, stdout, stderr io.Writer) int {
	ctx, cancel := signalContext()
	defer cancel()
	res, err := newClient(true).Command(ctx, "", text)
	if err != nil {
		return fail(stderr, name, err)
	}
	fmt.Fprintln(stdout, printable(res.Reply, true))
	return exitOK
}

func runWait(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "bridge wait: usage: bridge wait ID")
		return exitBadInput
	}
	ctx, cancel := signalContext()
	defer cancel()
	res, err := newClient(false).Wait(ctx, args[0])
	if err != nil {
		return fail(stderr, "wait", err)
	}
	return printResult(stdout, res)
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	session := fs.String("session", "", "only this session's questions")
	status := fs.String("status", "", "only questions with this status (pending, answered, …)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return exitBadInput
	}
	ctx, cancel := signalContext()
	defer cancel()
	qs, err := newClient(false).List(ctx, *session, client.Status(*status))
	if err != nil {
		return fail(stderr, "list", err)
	}
	if *asJSON {
		enc := json.NewEncoder(jsonTerminal{stdout})
		enc.SetIndent("", "  ")
		_ = enc.Encode(qs)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tEXPIRES\tQUESTION\tOPTIONS")
	for _, q := range qs {
		text, opts := "", ""
		if len(q.Questions) > 0 {
			text = printable(q.Questions[0].Question, false)
			for i, o := range q.Questions[0].Options {
				opts += fmt.Sprintf("%d=%s ", i+1, printable(o.Label, false))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q.ID, q.Status, q.ExpiresAt.Local().Format("15:04:05"), text, strings.TrimSpace(opts))
	}
	_ = tw.Flush()
	return exitOK
}

func runCancel(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cancel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	session := fs.String("session", "", "cancel every open question of this session")
	reason := fs.String("reason", "", "the reason shown to people")
	if err := fs.Parse(args); err != nil {
		return exitBadInput
	}
	if (*session == "") == (fs.NArg() != 1) {
		fmt.Fprintln(stderr, "bridge cancel: usage: bridge cancel ID | --session S [--reason R]")
		return exitBadInput
	}
	ctx, cancel := signalContext()
	defer cancel()
	c := newClient(false)
	if *session != "" {
		qs, err := c.CancelSession(ctx, *session, *reason)
		if err != nil {
			return fail(stderr, "cancel", err)
		}
		fmt.Fprintf(stdout, "cancelled %d question(s)\n", len(qs))
		return exitOK
	}
	res, err := c.Cancel(ctx, fs.Arg(0), *reason)
	if err != nil {
		return fail(stderr, "cancel", err)
	}
	printResult(stdout, res)
	return exitOK
}

func runCheckConfig(args []string, stdout, stderr io.Writer) int {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return exitBadInput
	}
	cfg, err := configFor(f)
	if err != nil {
		fmt.Fprintln(stderr, "bridge check-config:", err)
		return exitBadInput
	}
	fmt.Fprintf(stdout, "config OK: listen %s, store %s, %d route(s), channels: %s\n", cfg.Listen, storeName(cfg), len(cfg.Routes), strings.Join(slices.Sorted(maps.Keys(cfg.enabledChannels())), ", "))
	return exitOK
}
