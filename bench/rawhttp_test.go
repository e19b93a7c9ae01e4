package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
)

// countingServer is an httptest server that counts the connections it
// accepted.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func TestRawClientSendsWhatNetHTTPServerReads(t *testing.T) {
	type seen struct{ method, uri, host, ctype, clen, body string }
	got := make(chan seen, 1)
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, r.Host, r.Header.Get("Content-Type"), r.Header.Get("Content-Length"), string(b)}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"method":%q}`, r.Method)
	})
	rc := newRawClient(4)
	defer rc.close()
	ctx := context.Background()
	host := strings.TrimPrefix(srv.URL, "http://")

	code, body, err := rc.do(ctx, "POST", srv.URL+"/v1/questions", []byte(`{"question":"Which?"}`))
	if err != nil || code != http.StatusAccepted || string(body) != `{"method":"POST"}` {
		t.Fatalf("POST: %d %q %v", code, body, err)
	}
	want := seen{"POST", "/v1/questions", host, "application/json", "21", `{"question":"Which?"}`}
	if s := <-got; s != want {
		t.Fatalf("server read %+v, want %+v", s, want)
	}
	code, body, err = rc.do(ctx, "GET", srv.URL+"/v1/questions/k7m2qx?wait=30s", nil)
	if err != nil || code != http.StatusAccepted || string(body) != `{"method":"GET"}` {
		t.Fatalf("GET: %d %q %v", code, body, err)
	}
	want = seen{"GET", "/v1/questions/k7m2qx?wait=30s", host, "", "", ""}
	if s := <-got; s != want {
		t.Fatalf("server read %+v, want %+v", s, want)
	}
	for range 20 {
		if _, _, err := rc.do(ctx, "GET", srv.URL+"/", nil); err != nil {
			t.Fatal(err)
		}
		<-got
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("22 requests one after another took %d connections, want 1 kept alive", n)
	}
}

func TestRawClientReadsEveryBodyShape(t *testing.T) {
	long := strings.Repeat("0123456789", 1000) // past net/http's buffer: chunked
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			io.WriteString(w, long[:5000])
			w.(http.Flusher).Flush()
			io.WriteString(w, long[5000:])
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "last")
		case "/error":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			io.WriteString(w, "short")
		}
	})
	rc := newRawClient(4)
	defer rc.close()
	ctx := context.Background()
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{"/chunked", long, 200},
		{"/short", "short", 200},
		{"/empty", "", 204},
		{"/error", "boom\n", 500},
		{"/short", "short", 200},
	} {
		code, body, err := rc.do(ctx, "GET", srv.URL+c.path, nil)
		if err != nil || code != c.code || string(body) != c.body {
			t.Fatalf("%s: %d, %d bytes, %v; want %d, %d bytes", c.path, code, len(body), err, c.code, len(c.body))
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("the bodies took %d connections, want 1", n)
	}
	if code, body, err := rc.do(ctx, "GET", srv.URL+"/close", nil); err != nil || code != 200 || string(body) != "last" {
		t.Fatalf("/close: %d %q %v", code, body, err)
	}
	if _, _, err := rc.do(ctx, "GET", srv.URL+"/short", nil); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("after a Connection: close, %d connections in all, want 2", n)
	}
}

// cannedServer answers each connection's first request with reply, as
// it is, and closes the connection.
func cannedServer(t *testing.T, reply string) string {
	return "http://" + testutil.TCPService(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			l, err := br.ReadString('\n')
			if err != nil || l == "\r\n" {
				break
			}
		}
		io.WriteString(c, reply)
	})
}

func TestRawClientRefusesMalformedResponses(t *testing.T) {
	for _, c := range []struct{ name, reply, want string }{
		{"status line", "HTTP/2 200 OK\r\n\r\n", "malformed status line"},
		{"status code", "HTTP/1.1 2x0 OK\r\n\r\n", "malformed status line"},
		{"header", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header"},
		{"content length", "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", "bad Content-Length"},
		{"transfer encoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported Transfer-Encoding"},
		{"chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"},
		{"chunk end", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "not followed by CRLF"},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "unexpected EOF"},
		{"switching protocols", "HTTP/1.1 101 Switching Protocols\r\n\r\n", "switching protocols"},
		{"informational without an answer", "HTTP/1.1 103 Early Hints\r\n\r\n", "EOF"},
		{"too many informational", strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 6), "too many informational"},
		{"nothing", "", "EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := cannedServer(t, c.reply)
			rc := newRawClient(1)
			defer rc.close()
			_, _, err := rc.do(context.Background(), "POST", url+"/v1/commands", []byte(`{}`))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if n := len(rc.idle[strings.TrimPrefix(url, "http://")]); n != 0 {
				t.Fatalf("a connection that failed was kept (%d idle)", n)
			}
		})
	}
}

func TestRawClientRefusesURLsItCannotSend(t *testing.T) {
	rc := newRawClient(1)
	for _, u := range []string{"https://127.0.0.1:1/v1", "127.0.0.1:1/v1", "http:///v1", ""} {
		if _, _, err := rc.do(context.Background(), "GET", u, nil); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", u)) {
			t.Fatalf("%q: got %v, want an error naming the URL", u, err)
		}
	}
}

// A server that closes a kept-alive connection while it is idle: a GET
// goes again on a new connection, as net/http's client sends it; a POST,
// which the server may have acted on for all the client can tell, is
// reported.
func TestRawClientAfterTheServerClosedAnIdleConnection(t *testing.T) {
	idle := make(chan net.Conn, 16)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Method)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			conns.Add(1)
		case http.StateIdle:
			idle <- c
		}
	}
	srv.Start()
	defer srv.Close()
	rc := newRawClient(1)
	defer rc.close()
	host := strings.TrimPrefix(srv.URL, "http://")
	// closeIdle closes the server's side of the client's idle connection
	// and waits until the client's side can tell.
	closeIdle := func() {
		(<-idle).Close()
		for start := time.Now(); ; time.Sleep(time.Millisecond) {
			rc.mu.Lock()
			l := rc.idle[host]
			closed := len(l) == 1 && closedByPeer(l[0].c)
			rc.mu.Unlock()
			if closed {
				return
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the server's close never reached the client's idle connection")
			}
		}
	}
	ctx := context.Background()
	if _, _, err := rc.do(ctx, "GET", srv.URL+"/", nil); err != nil {
		t.Fatal(err)
	}
	closeIdle()
	if code, body, err := rc.do(ctx, "GET", srv.URL+"/", nil); err != nil || code != 200 || string(body) != "GET" {
		t.Fatalf("GET after the close: %d %q %v, want it sent again", code, body, err)
	}
	closeIdle()
	_, _, err := rc.do(ctx, "POST", srv.URL+"/", []byte(`{}`))
	if !errors.Is(err, errClosedIdle) {
		t.Fatalf("POST after the close: %v, want errClosedIdle", err)
	}
	if code, _, err := rc.do(ctx, "POST", srv.URL+"/", []byte(`{}`)); err != nil || code != 200 {
		t.Fatalf("POST on a new connection: %d %v", code, err)
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("%d connections, want 3", n)
	}

	// A connection idle past probeAfter is checked when taken: one the
	// server closed is dropped, and the POST goes on a new connection; one
	// still open is used again.
	defer func(d time.Duration) { probeAfter = d }(probeAfter)
	probeAfter = 0
	closeIdle()
	if code, body, err := rc.do(ctx, "POST", srv.URL+"/", []byte(`{}`)); err != nil || code != 200 || string(body) != "POST" {
		t.Fatalf("POST after the close, the connection checked: %d %q %v", code, body, err)
	}
	<-idle
	for range 5 {
		if _, _, err := rc.do(ctx, "GET", srv.URL+"/", nil); err != nil {
			t.Fatal(err)
		}
		<-idle
	}
	if n := conns.Load(); n != 4 {
		t.Fatalf("%d connections, want 4: an open connection checked and used again", n)
	}
}

func TestRawClientEndsWithItsContext(t *testing.T) {
	release := make(chan struct{})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	rc := newRawClient(1)
	defer rc.close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := rc.do(ctx, "GET", srv.URL+"/v1/questions/k7m2qx?wait=30s", nil)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a long-poll went on after its context ended")
	}
	if n := len(rc.idle[strings.TrimPrefix(srv.URL, "http://")]); n != 0 {
		t.Fatalf("the cancelled request's connection was kept (%d idle)", n)
	}

	dctx, dcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer dcancel()
	if _, _, err := rc.do(dctx, "GET", srv.URL+"/", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past its deadline: %v, want context.DeadlineExceeded", err)
	}
}

// The agents' API gives the same answers through either client.
func TestAgentAPIClientsAgree(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/questions":
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, `{"id":"k7m2qx","status":"pending"}`)
		case "/v1/commands":
			io.WriteString(w, `{"ok":true,"reply":"Answered."}`)
		case "/v1/questions/k7m2qx":
			io.WriteString(w, `{"id":"k7m2qx","status":"answered","answers":{"Which database should the service use?":{"selected":["SQLite"]}}}`)
		default:
			http.Error(w, "no such thing", http.StatusInternalServerError)
		}
	})
	ctx := context.Background()
	for _, a := range []*agentAPI{newAgentAPI(2, false), newRawAgentAPI(2, false)} {
		q, err := a.ask(ctx, srv.URL, "s", "c", "0s")
		if err != nil || q.ID != "k7m2qx" || q.Status != "pending" {
			t.Fatalf("raw=%v ask: %+v %v", a.raw != nil, q, err)
		}
		if err := a.answer(ctx, srv.URL, q.ID, "responder"); err != nil {
			t.Fatalf("raw=%v answer: %v", a.raw != nil, err)
		}
		r, err := a.wait(ctx, srv.URL, q.ID)
		if err != nil || !r.answered() {
			t.Fatalf("raw=%v wait: %+v %v", a.raw != nil, r, err)
		}
		_, err = a.do(ctx, http.MethodGet, srv.URL+"/nowhere", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "status 500: no such thing") {
			t.Fatalf("raw=%v: a 500 gave %v, want its body quoted", a.raw != nil, err)
		}
		a.close()
	}
}

// Informational responses before the answer (a waiting ask's 103 with
// its warnings) are read past: the answer is what the client returns,
// and the connection is kept.
func TestRawClientReadsPastInformationalResponses(t *testing.T) {
	reply := "HTTP/1.1 103 Early Hints\r\nX-Askbridge-Warning: nobody is watching\r\n\r\n" +
		"HTTP/1.1 100 Continue\r\n\r\n" +
		"HTTP/1.1 202 Accepted\r\nContent-Length: 16\r\n\r\n{\"id\":\"k7m2qx\"}\n"
	url := cannedServer(t, reply)
	rc := newRawClient(1)
	defer rc.close()
	code, body, err := rc.do(context.Background(), "POST", url+"/v1/questions", []byte(`{}`))
	if err != nil || code != 202 || string(body) != "{\"id\":\"k7m2qx\"}\n" {
		t.Fatalf("got %d %q %v, want the 202 and its body", code, body, err)
	}
	if n := len(rc.idle[strings.TrimPrefix(url, "http://")]); n != 1 {
		t.Fatalf("%d idle connections after the answer, want the one kept", n)
	}
}
