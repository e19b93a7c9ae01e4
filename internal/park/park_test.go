package park_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/park"
)

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// bridge is an HTTP server that serves its listener and a Parking, as
// bridge serve does.
type bridge struct {
	url     string
	addr    string
	ln      *countingListener
	parking *park.Parking
	srv     *http.Server
}

// serve starts a server for h; configure may set its timeouts.
func serve(t testing.TB, h http.Handler, configure ...func(*http.Server)) *bridge {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &bridge{ln: &countingListener{Listener: inner}, parking: park.New(),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second}}
	for _, f := range configure {
		f(b.srv)
	}
	b.addr = inner.Addr().String()
	b.url = "http://" + b.addr
	var wg sync.WaitGroup
	wg.Go(func() { _ = b.srv.Serve(b.ln) })
	wg.Go(func() { _ = b.srv.Serve(b.parking) })
	t.Cleanup(func() {
		_ = b.srv.Close()
		wg.Wait()
	})
	// Serve has started accepting from the parking once a request parks.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if b.parkingServed() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server does not serve the parking")
		}
	}
	return b
}

// parkingServed reports whether a server accepts from the parking: a
// request that parks needs one.
func (b *bridge) parkingServed() bool {
	rec := &probe{header: http.Header{}}
	r, _ := http.NewRequest(http.MethodGet, "/", http.NoBody)
	b.parking.Take(rec, r)
	return rec.hijackTried
}

// probe is a ResponseWriter that records whether Take tried to hijack:
// it does only once a server serves the parking.
type probe struct {
	header      http.Header
	hijackTried bool
}

func (p *probe) Header() http.Header         { return p.header }
func (p *probe) Write(b []byte) (int, error) { return len(b), nil }
func (p *probe) WriteHeader(int)             {}
func (p *probe) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	p.hijackTried = true
	return nil, nil, http.ErrNotSupported
}

// parker is a handler that parks every request whose path starts with
// /park and answers it when its release channel is closed; other paths
// answer at once.
type parker struct {
	p       func() *park.Parking
	release chan struct{}
	// later, when set, holds back the answers of paths it names until
	// their own channel closes.
	later    map[string]chan struct{}
	taken    atomic.Int64
	notTaken atomic.Int64
	gone     chan struct{}
}

func newParker() *parker {
	return &parker{release: make(chan struct{}), gone: make(chan struct{}, 16)}
}

func (h *parker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/park") {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "quick "+r.URL.Path)
		return
	}
	w.Header().Set("X-Before", "set before the take")
	c, ok := h.p().Take(w, r)
	if !ok {
		h.notTaken.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "not parked "+r.URL.Path)
		return
	}
	h.taken.Add(1)
	go func() {
		// The one goroutine of a parked request: it reads the connection
		// until released or the client hangs up.
		release := h.release
		if ch, ok := h.later[r.URL.Path]; ok {
			release = ch
		}
		stop := make(chan struct{})
		go func() {
			select {
			case <-release:
				c.Interrupt()
			case <-stop:
			}
		}()
		for !c.Gone() {
			select {
			case <-release:
			default:
				c.Await()
				continue
			}
			break
		}
		close(stop)
		if c.Gone() {
			h.gone <- struct{}{}
		}
		c.Header().Set("Content-Type", "text/plain")
		c.Header().Set("X-Path", r.URL.Path)
		c.WriteHeader(http.StatusAccepted)
		io.WriteString(c, "parked "+r.URL.Path)
		c.Finish()
	}()
}

func TestAParkedRequestKeepsItsConnection(t *testing.T) {
	h := newParker()
	b := serve(t, h)
	h.p = func() *park.Parking { return b.parking }
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	get := func(path string) (*http.Response, string, bool) {
		t.Helper()
		var reused bool
		req, _ := http.NewRequest(http.MethodGet, b.url+path, nil)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
		}))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, bodyOf(t, resp), reused
	}

	go func() { time.Sleep(100 * time.Millisecond); close(h.release) }()
	resp, body, _ := get("/park/1")
	if resp.StatusCode != http.StatusAccepted || body != "parked /park/1" {
		t.Fatalf("parked request: %d %q", resp.StatusCode, body)
	}
	if h.taken.Load() != 1 {
		t.Fatalf("taken %d, not taken %d: the request was not parked", h.taken.Load(), h.notTaken.Load())
	}
	for k, want := range map[string]string{
		"Content-Type": "text/plain", "X-Path": "/park/1", "X-Before": "set before the take",
		"Content-Length": "14",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if resp.Header.Get("Date") == "" {
		t.Error("no Date header")
	}
	if resp.Close {
		t.Error("the parked response closes the connection")
	}

	// The next requests, parked or not, reuse the connection.
	for _, path := range []string{"/quick", "/park/2", "/quick"} {
		resp, body, reused := get(path)
		if resp.StatusCode/100 != 2 || !strings.HasSuffix(body, path) {
			t.Fatalf("%s after a parked request: %d %q", path, resp.StatusCode, body)
		}
		if !reused {
			t.Errorf("%s did not reuse the connection", path)
		}
	}
	if n := b.ln.n.Load(); n != 1 {
		t.Errorf("the server accepted %d connections, want 1", n)
	}
}

// rawConn sends raw HTTP to b and reads its answers.
func rawConn(t *testing.T, b *bridge) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", b.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	return resp, bodyOf(t, resp)
}

// bodyOf reads resp's whole body and closes it.
func bodyOf(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func TestPipelinedRequestsAnswerInOrder(t *testing.T) {
	h := newParker()
	b := serve(t, h)
	h.p = func() *park.Parking { return b.parking }
	c, br := rawConn(t, b)
	if _, err := io.WriteString(c, "GET /park/a HTTP/1.1\r\nHost: x\r\n\r\nGET /quick/b HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	close(h.release)
	for _, want := range []string{"parked /park/a", "quick /quick/b"} {
		if _, body := readResponse(t, br); body != want {
			t.Fatalf("body %q, want %q", body, want)
		}
	}
}

func TestAClientThatHangsUpIsGone(t *testing.T) {
	h := newParker()
	b := serve(t, h)
	h.p = func() *park.Parking { return b.parking }
	c, _ := rawConn(t, b)
	io.WriteString(c, "GET /park/hangup HTTP/1.1\r\nHost: x\r\n\r\n")
	for deadline := time.Now().Add(5 * time.Second); h.taken.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request was not parked")
		}
	}
	c.Close()
	select {
	case <-h.gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the parked request did not notice its client hang up")
	}
}

func TestInterruptWakesAwaitOnce(t *testing.T) {
	conns := make(chan *park.Conn, 2)
	var p *park.Parking
	b := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := p.Take(w, r)
		if !ok {
			t.Error("not taken")
			return
		}
		conns <- c
	}))
	p = b.parking
	c, br := rawConn(t, b)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	got := <-conns

	// An Interrupt before Await makes it return at once; one during
	// Await wakes it.
	got.Interrupt()
	awaited := make(chan struct{})
	go func() { got.Await(); close(awaited) }()
	select {
	case <-awaited:
	case <-time.After(5 * time.Second):
		t.Fatal("Await did not return after an earlier Interrupt")
	}
	awaited = make(chan struct{})
	go func() { got.Await(); close(awaited) }()
	select {
	case <-awaited:
		t.Fatal("Await returned with nothing to wake it")
	case <-time.After(200 * time.Millisecond):
	}
	got.Interrupt()
	select {
	case <-awaited:
	case <-time.After(5 * time.Second):
		t.Fatal("Interrupt did not wake Await")
	}
	if got.Gone() {
		t.Fatal("an Interrupt looks like a hang-up")
	}
	// The interruptions left the connection readable and writable: the
	// answer goes out, and the next request reaches the server.
	io.WriteString(got, "after interrupts")
	got.Finish()
	if _, body := readResponse(t, br); body != "after interrupts" {
		t.Fatalf("body %q", body)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case second := <-conns:
		io.WriteString(second, "second")
		second.Finish()
	case <-time.After(5 * time.Second):
		t.Fatal("the next request on the connection did not reach the server")
	}
	if _, body := readResponse(t, br); body != "second" {
		t.Fatalf("body %q", body)
	}
	if n := b.ln.n.Load(); n != 1 {
		t.Errorf("%d connections accepted, want 1", n)
	}
}

func TestRequestsThatAreNotTaken(t *testing.T) {
	h := newParker()
	b := serve(t, h)
	h.p = func() *park.Parking { return b.parking }
	for _, tt := range []struct{ name, req string }{
		{"HTTP/1.0", "GET /park/old HTTP/1.0\r\nHost: x\r\n\r\n"},
		{"HEAD", "HEAD /park/head HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"an unread body", "POST /park/body HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := h.notTaken.Load()
			c, br := rawConn(t, b)
			io.WriteString(c, tt.req)
			method, _, _ := strings.Cut(tt.req, " ")
			resp, err := http.ReadResponse(br, &http.Request{Method: method})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || h.notTaken.Load() != before+1 {
				t.Fatalf("%d, not taken %d → %d: want answered at once, not parked", resp.StatusCode, before, h.notTaken.Load())
			}
		})
	}
	// Nobody serves this parking: it takes nothing.
	idle := park.New()
	h2 := newParker()
	h2.p = func() *park.Parking { return idle }
	srv := &http.Server{Handler: h2, ReadHeaderTimeout: 5 * time.Second}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Close()
	if body := getBody(t, "http://"+ln.Addr().String()+"/park/unserved"); body != "not parked /park/unserved" {
		t.Fatalf("with no server on the parking: %q", body)
	}
}

func TestConnectionCloseIsHonoured(t *testing.T) {
	h := newParker()
	b := serve(t, h)
	h.p = func() *park.Parking { return b.parking }
	close(h.release)
	c, br := rawConn(t, b)
	io.WriteString(c, "GET /park/close HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	resp, body := readResponse(t, br)
	if body != "parked /park/close" || !resp.Close {
		t.Fatalf("%q, close %v: want the parked answer with Connection: close", body, resp.Close)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after Connection: close the connection is still open (%v)", err)
	}
}

func TestIdleConnectionsCloseAfterTheIdleTimeout(t *testing.T) {
	h := newParker()
	b := serve(t, h, func(s *http.Server) { s.IdleTimeout = 300 * time.Millisecond })
	h.p = func() *park.Parking { return b.parking }
	close(h.release)
	c, br := rawConn(t, b)
	io.WriteString(c, "GET /park/idle HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, body := readResponse(t, br); body != "parked /park/idle" {
		t.Fatalf("body %q", body)
	}
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("the idle connection was not closed: %v", err)
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Errorf("closed after %s, before the idle timeout", time.Since(start))
	}
}

func TestClosingTheParking(t *testing.T) {
	h := newParker()
	waiting := make(chan struct{})
	h.later = map[string]chan struct{}{"/park/waiting": waiting}
	close(h.release)
	b := serve(t, h)
	h.p = func() *park.Parking { return b.parking }

	// One connection is idle after its parked answer; another still
	// waits for its answer.
	idleConn, idleBr := rawConn(t, b)
	io.WriteString(idleConn, "GET /park/idle HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := readResponse(t, idleBr); body != "parked /park/idle" || resp.Close {
		t.Fatalf("%q, close %v", body, resp.Close)
	}
	waitConn, waitBr := rawConn(t, b)
	io.WriteString(waitConn, "GET /park/waiting HTTP/1.1\r\nHost: x\r\n\r\n")
	for deadline := time.Now().Add(5 * time.Second); h.taken.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the requests were not parked")
		}
	}
	_ = b.parking.Close()

	// The idle one is closed at once.
	idleConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idleBr.ReadByte(); err != io.EOF {
		t.Errorf("the idle connection stays open after the parking closed (%v)", err)
	}
	// The waiting one answers with Connection: close, and closes.
	close(waiting)
	resp, body := readResponse(t, waitBr)
	if body != "parked /park/waiting" || !resp.Close {
		t.Errorf("%q, close %v: want the answer with Connection: close", body, resp.Close)
	}
	waitConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := waitBr.ReadByte(); err != io.EOF {
		t.Errorf("the connection stays open after its answer (%v)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.parking.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	// Nothing more is taken.
	if body := getBody(t, b.url+"/park/after"); body != "not parked /park/after" {
		t.Fatalf("after Close: %q", body)
	}
}

// getBody GETs url and returns the body.
func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	return bodyOf(t, resp)
}

func TestHeaderValuesCannotAddHeaders(t *testing.T) {
	var p *park.Parking
	b := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := p.Take(w, r)
		if !ok {
			t.Error("not taken")
			return
		}
		c.Header().Set("X-Note", "one\r\nSet-Cookie: evil=1")
		c.Write([]byte("{}"))
		c.Finish()
	}))
	p = b.parking
	c, br := rawConn(t, b)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, _ := readResponse(t, br)
	if resp.Header.Get("Set-Cookie") != "" {
		t.Fatal("a header value added a header")
	}
	if got := resp.Header.Get("X-Note"); got != "one  Set-Cookie: evil=1" { // each of CR and LF a space, as net/http writes it
		t.Errorf("X-Note = %q", got)
	}
	if got := resp.Header.Get("Content-Type"); got != "text/plain; charset=utf-8" {
		t.Errorf("sniffed Content-Type = %q", got)
	}
}
