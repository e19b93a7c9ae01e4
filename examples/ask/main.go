// Command ask is a small agent that asks a person one question through an
// askbridge server and acts on the outcome. It shows the Go SDK's error
// handling: an answer, a decline (or a wish to discuss first), a timeout
// with or without a default, a cancellation, no channel to ask on.
//
//	export ASKBRIDGE_SERVER=http://127.0.0.1:8377 ASKBRIDGE_KEY=...
//	go run ./examples/ask -default SQLite "Which database should the service use?" Postgres SQLite
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/askbridge/askbridge/client"
)

func main() {
	os.Exit(run())
}

func run() int {
	def := flag.String("default", "", "the answer to use when nobody answers in time")
	timeout := flag.String("timeout", "10m", "how long people have to answer")
	session := flag.String("session", "example-agent", "the agent session the question belongs to")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, `usage: ask [-default LABEL] [-timeout 10m] "question" OPTION OPTION [OPTION [OPTION]]`)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 3 || flag.NArg() > 5 {
		flag.Usage()
		return 2
	}
	q := client.Question{Question: flag.Arg(0), Timeout: *timeout, SessionID: *session}
	for _, label := range flag.Args()[1:] {
		q.Options = append(q.Options, client.Option{Label: label})
	}
	if *def != "" {
		q.Default = []string{*def}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := client.New(os.Getenv("ASKBRIDGE_SERVER"), os.Getenv("ASKBRIDGE_KEY"))
	res, err := c.Ask(ctx, q)

	var declined *client.DeclinedError
	switch {
	case err == nil && res.Status == client.StatusTimedOut:
		fmt.Println("nobody answered; going with the default:", choice(res, q.Question))
	case err == nil:
		who := "someone"
		if res.AnsweredBy != nil {
			who = res.AnsweredBy.Name
		}
		fmt.Println("answer:", choice(res, q.Question), "— from", who)
	case errors.As(err, &declined) && declined.NotReady:
		fmt.Println("the person wants to discuss first:", declined.Reason)
	case errors.As(err, &declined):
		fmt.Println("declined:", declined.Reason)
	case errors.Is(err, client.ErrTimeout):
		fmt.Println("nobody answered and there is no default; stopping here")
		return 4
	case errors.Is(err, client.ErrCancelled), errors.Is(err, client.ErrUnsupported):
		fmt.Println(err)
		return 5
	default:
		fmt.Fprintln(os.Stderr, "ask:", err)
		return 1
	}
	return 0
}

// choice is what the person chose, or typed, for the question.
func choice(res *client.Result, question string) string {
	a := res.Answers[question]
	if a.CustomText != "" {
		return a.CustomText
	}
	return strings.Join(a.Selected, ", ")
}
