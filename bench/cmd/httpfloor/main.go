// Command httpfloor is the floor under the bridge's CPU per cycle: a
// net/http server that answers the three requests of askbench's cycle
// (the ask, the answer command, the long-poll that reads the result) with
// bodies of the bridge's own shape and size, and does nothing else. No
// store, no broker, no JSON decoding: it reads each request's body and
// writes a prepared answer with the id put in.
//
// It takes the arguments askbench gives `bridge serve`, so the load tool
// starts and measures it as it does a bridge:
//
//	go build -o /tmp/httpfloor ./bench/cmd/httpfloor
//	askbench load --bridge /tmp/httpfloor --store-only=false
//
// What it costs per cycle is what net/http and the kernel's loopback take
// for the cycle's three exchanges on the machine, which no change inside
// the bridge's handlers can go below.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "httpfloor:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) == 0 || args[0] != "serve" {
		return fmt.Errorf("usage: httpfloor serve --listen ADDR (as askbench starts a bridge)")
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8765", "address to listen on")
	// askbench also passes these to a bridge; the floor has no store and
	// no configuration, so it accepts and ignores them.
	fs.String("data-dir", "", "ignored")
	fs.String("store", "", "ignored")
	fs.String("config", "", "ignored")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	return http.ListenAndServe(*listen, handler())
}

// The answers, as `bridge serve` on its defaults gives them to askbench's
// four-option question, with ID where the question's id goes.
const (
	askedBody    = `{"id":"ID","status":"pending","expires_at":"2026-12-02T07:08:38.955Z"}`
	questionBody = `"id":"ID","status":"answered","session_id":"s1","tool_call_id":"c1","questions":[{"question":"Which database should the service use?","header":"Database","options":[{"label":"Postgres","description":"relational, needs a server"},{"label":"SQLite","description":"embedded, one file"},{"label":"MySQL","description":"relational, needs a server"},{"label":"Redis","description":"in memory, persistence optional"}]}],"answers":{"Which database should the service use?":{"selected":["SQLite"],"custom_text":"","skipped":false,"answered_by":{"channel":"cli","user":"u1","name":"u1"}}},"answered_by":{"channel":"cli","user":"u1","name":"u1"},"route":"default","created_at":"2026-12-02T06:38:38.955Z","expires_at":"2026-12-02T07:08:38.955Z","resolved_at":"2026-12-02T06:38:39.338Z"`
	commandBody  = `{"ok":true,"reply":"Recorded: SQLite","question":{` + questionBody + `}}`
	resultBody   = `{` + questionBody + `,"copies":[{"target":{"channel":"web"},"state":"posted","message_id":"ID","attempts":1,"updated_at":"2026-12-02T06:38:38.955Z","edit":"done"},{"target":{"channel":"cli"},"state":"posted","message_id":"ID","attempts":1,"updated_at":"2026-12-02T06:38:38.955Z"}]}`
)

func handler() http.Handler {
	var next atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("POST /v1/questions", func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		write(w, http.StatusAccepted, askedBody, "f"+strconv.FormatInt(next.Add(1), 36))
	})
	mux.HandleFunc("POST /v1/commands", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		// The id is the word after "/answer " in the command's text.
		id := "f0"
		if _, after, ok := strings.Cut(string(body), "/answer "); ok {
			id, _, _ = strings.Cut(after, " ")
		}
		write(w, http.StatusOK, commandBody, id)
	})
	mux.HandleFunc("GET /v1/questions/{id}", func(w http.ResponseWriter, r *http.Request) {
		write(w, http.StatusOK, resultBody, r.PathValue("id"))
	})
	return mux
}

// write sends body with id in place of ID, as the bridge sends JSON.
func write(w http.ResponseWriter, code int, body, id string) {
	out := strings.ReplaceAll(body, "ID", id) + "\n"
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(code)
	io.WriteString(w, out) //nolint:errcheck // the client may have gone; nothing to do
}
