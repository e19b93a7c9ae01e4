package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/cmdline/cmdlinetest"
)

// On a terminal, ask shows while it waits the question's id, where it
// was posted, the web inbox's link and the time waited; colours only
// without NO_COLOR. On a pipe, standard error stays empty and standard
// output holds the result alone.
func TestProcessAskShowsItsWaitOnATerminal(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())

	for _, noColor := range []string{"", "1"} {
		t.Run("NO_COLOR="+noColor, func(t *testing.T) {
			pty := cmdlinetest.Open(t, 120)
			var stdout bytes.Buffer
			ask := bridgeCmd(t, addr, "ask", "--option", "Postgres", "--option", "SQLite", "Which database?")
			ask.Env = append(ask.Env, "NO_COLOR="+noColor)
			ask.Stdout, ask.Stderr = &stdout, pty.Term
			if err := ask.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ask.Process.Kill() })
			id := waitPending(t, addr, 1)[0]
			pty.WaitFor(t, "expires ")
			if r := runBridge(t, addr, "answer", id, "1"); r.code != 0 {
				t.Fatalf("answer: exit %d %s", r.code, r.stderr)
			}
			if err := ask.Wait(); err != nil {
				t.Fatalf("ask: %v", err)
			}
			shown := pty.Output()
			plain := stripSGR(shown)
			for _, want := range []string{
				"Asked question " + id + " on route default\n",
				"Answer it in the web inbox: http://" + addr + "/#q-" + id + "\n",
				"waiting 0:0", "web: posted", "cli: posted", "expires ",
				"warning: nobody is watching the web inbox; the question will wait until ",
			} {
				if !strings.Contains(plain, want) {
					t.Errorf("the terminal does not show %q:\n%q", want, shown)
				}
			}
			if colours := strings.Contains(shown, "\x1b[1m"+id); colours != (noColor == "") {
				t.Errorf("colours shown: %v with NO_COLOR=%q:\n%q", colours, noColor, shown)
			}
			if !strings.HasSuffix(shown, "\r\x1b[K") {
				t.Errorf("the status line is left on screen:\n%q", shown)
			}
			if r := decodeResult(t, stdout.String()); r.ID != id || r.Status != "answered" {
				t.Errorf("result %+v", r)
			}
		})
	}

	t.Run("pipe", func(t *testing.T) {
		ask := startBridge(t, addr, "ask", "--option", "Postgres", "--option", "SQLite", "Which database, on a pipe?")
		id := waitPending(t, addr, 1)[0]
		if r := runBridge(t, addr, "answer", id, "2"); r.code != 0 {
			t.Fatalf("answer: exit %d %s", r.code, r.stderr)
		}
		if code := ask.wait(t, time.Minute); code != cmdline.ExitOK {
			t.Fatalf("ask exit %d: %s", code, ask.errb.String())
		}
		// No page is open and the route is the default's (the web inbox
		// and the text channel): the bridge's warning is all a pipe gets,
		// without colour.
		if s := ask.errb.String(); !strings.HasPrefix(s, "warning: nobody is watching the web inbox; the question will wait until ") ||
			strings.Count(s, "\n") != 1 || strings.Contains(s, "\x1b") {
			t.Errorf("ask wrote on a pipe's standard error %q, want the warning line alone", s)
		}
		if r := decodeResult(t, ask.out.String()); r.ID != id {
			t.Errorf("result %+v", r)
		}
	})
}

// stripSGR removes colour codes and turns the status line's rewrites
// into line ends, to read what a person saw.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return strings.ReplaceAll(b.String(), "\r", "\n")
}
