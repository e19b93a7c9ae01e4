// Command bridge runs the askbridge server and talks to it: serve, ask,
// answer, wait, list, cancel, check-config, version.
//
// Exit codes of the client commands: 0 answered (or done), 3 declined,
// 4 timed out, 5 cancelled, 6 unsupported, 2 bad input, 1 other failure.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitBadInput    = 2
	exitDeclined    = 3
	exitTimedOut    = 4
	exitCancelled   = 5
	exitUnsupported = 6
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `bridge: askbridge, questions from agents to people, answers back.

Usage:
  bridge serve [--config F] [--listen ADDR] [--data-dir DIR] [--store URL]
  bridge ask [options] "question"       ask and wait; prints the result JSON
  bridge answer ID CHOICE...            answer as a person (2, 1,3, a label, other <text>, 1,3 other <text>, skip)
  bridge decline ID [REASON...]         decline a question as a person
  bridge wait ID                        wait for a question's result
  bridge list [--session S] [--status S] [--json]
  bridge cancel ID | --session S [--reason R]
  bridge events [--session S]          stream resolutions (SSE) as JSON lines
  bridge mcp                            MCP server on standard input and output
  bridge check-config [--config F]
  bridge version

Client commands talk to $ASKBRIDGE_SERVER (default http://127.0.0.1:8377)
with the key in $ASKBRIDGE_KEY; answer and decline use
$ASKBRIDGE_RESPONDER_KEY when it is set.
Run "bridge COMMAND -h" for a command's options.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitBadInput
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(rest, stdout, stderr)
	case "ask":
		return runAsk(rest, stdin, stdout, stderr)
	case "answer":
		return runAnswer(rest, stdout, stderr)
	case "decline":
		return runDecline(rest, stdout, stderr)
	case "wait":
		return runWait(rest, stdout, stderr)
	case "list":
		return runList(rest, stdout, stderr)
	case "cancel":
		return runCancel(rest, stdout, stderr)
	case "events":
		return runEvents(rest, stdout, stderr)
	case "mcp":
		return runMCP(rest, stdin, stdout, stderr)
	case "check-config":
		return runCheckConfig(rest, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "bridge", versionString())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "bridge: unknown command %q\n\n%s", cmd, usage)
	return exitBadInput
}

func versionString() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		v += " " + info.GoVersion
	}
	return v
}
