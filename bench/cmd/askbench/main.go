// Command askbench measures askbridge end to end, at scale and under
// faults. Every run is bounded in count and time, stops by itself and
// sends traffic only to 127.0.0.1.
//
//	askbench load  [--store sqlite|redis|URL] [--instances 1|2] [--mode blocking|pending] ...
//	askbench soak  [--store sqlite|redis] [--duration 10m] [--rate 200] ...
//	askbench scale pending|waiters|sweep|inbox ...
//	askbench fault kill9|redis-restart|platform-cut|platform-429|post-outage ...
//	askbench fault restart-in-outage|client-hangup|burst ...
//
// Run it from the repository: go run ./bench/cmd/askbench load --help
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: askbench <command> [flags]

commands:
  load                  concurrent agents and responders against bridge serve
  soak                  a steady rate for minutes; the last minute against the first
  scale pending         Redis memory per pending question
  scale waiters         bridge memory per blocked waiter
  scale sweep           questions timing out in the same second
  scale inbox           the web inbox's pages as the store fills
  fault kill9           kill -9 a bridge under load and restart it
  fault redis-restart   restart Redis (AOF on) under load
  fault platform-cut    cut the fake Telegram server for a while
  fault platform-429    fill the fake Telegram server with 429s
  fault post-outage     ask while the fake Telegram server is cut off
  fault restart-in-outage  resolve and kill -9 the bridge while Telegram is cut off
  fault client-hangup   asks whose clients hang up while the platforms are slow
  fault burst           500 questions to one Slack channel and one Telegram group

Each command takes --help.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "load":
		err = runLoad(ctx, rest, stdout, stderr)
	case "soak":
		err = runSoak(ctx, rest, stdout, stderr)
	case "scale":
		err = runScale(ctx, rest, stdout, stderr)
	case "fault":
		err = runFault(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "askbench: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "askbench: %v\n", err)
		if _, ok := err.(usageError); ok {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a mistake in the command line.
type usageError struct{ error }
