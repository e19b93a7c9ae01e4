// Package park lets an HTTP/1.1 request that waits a long time (a
// long-poll) give up the goroutines and buffers net/http holds for its
// connection while it waits.
//
// A request net/http serves holds its connection's goroutine, whose stack
// has grown through the handler, a background reader goroutine, and 4 KiB
// read and write buffers, besides the response's own buffer: a bridge
// holding 10,000 long-polls so takes about 31 KiB of RSS for each, against
// 15 KiB parked. Take hijacks the connection instead: the handler returns,
// and the response is made on a Conn (an http.ResponseWriter) by a
// goroutine of the caller's that starts with a small stack, and written
// in one piece by Finish, with its Content-Length, as net/http writes it
// (TestResponsesMatchNetHTTP and FuzzResponsesMatchNetHTTP hold the two
// together). That goroutine waits in Await, reading the connection for a
// byte, so that it learns when the client hangs up (Gone) as a request's
// context would; Interrupt wakes it when whatever it waits for needs it,
// so that one goroutine serves the wait and the connection.
//
// Keep-alive is kept: after the response the connection waits for the
// client's next request (at most the server's IdleTimeout), and then goes
// back to the http.Server through Parking, which is a net.Listener the
// server also serves. A connection that cannot go back (the server shut
// down, the client asked to close) gets "Connection: close" and is closed.
package park

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Parking takes over the connections of waiting requests and hands them
// back to the http.Server that serves it (as a listener) once their
// responses are written. Create it with New; serve it with http.Server.Serve
// beside the server's own listener. Closing it (Shutdown does) makes the
// connections it holds close after their responses.
type Parking struct {
	back   chan net.Conn
	closed chan struct{}
	once   sync.Once
	// serving is set once a server accepts from the parking: until then
	// nothing would take connections back, and Take takes none.
	serving atomic.Bool

	mu sync.Mutex
	// idlers are the connections whose response is written and which
	// wait for their client's next request.
	idlers map[*Conn]struct{}
	// busy counts the Conns taken and not yet finished: Wait waits for
	// their responses.
	busy sync.WaitGroup
}

// New returns a Parking. The connections it takes keep the WriteTimeout
// and IdleTimeout of the server that served their request.
func New() *Parking {
	return &Parking{back: make(chan net.Conn), closed: make(chan struct{}), idlers: map[*Conn]struct{}{}}
}

// Accept returns the next connection handed back, for the http.Server to
// serve its next request.
func (p *Parking) Accept() (net.Conn, error) {
	p.serving.Store(true)
	select {
	case c := <-p.back:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

// Close stops handing connections back: those waiting for their client's
// next request are closed, and those still waiting for their response are
// closed after it.
func (p *Parking) Close() error {
	p.once.Do(func() {
		close(p.closed)
		p.mu.Lock()
		for c := range p.idlers {
			// The reader sees the deadline pass and closes its connection.
			_ = c.conn.SetReadDeadline(aLongTimeAgo)
		}
		p.mu.Unlock()
	})
	return nil
}

// Addr names the parking; it listens on no address of its own.
func (p *Parking) Addr() net.Addr { return addr{} }

type addr struct{}

func (addr) Network() string { return "park" }
func (addr) String() string  { return "parked connections" }

// Wait blocks until every taken Conn has written its response, or ctx
// ends: a server that shuts down waits for the long-polls it released.
func (p *Parking) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { p.busy.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Parking) isClosed() bool {
	select {
	case <-p.closed:
		return true
	default:
		return false
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// Take hijacks the connection of r, an HTTP/1.1 request whose body has
// been read, and returns the Conn its response is to be made on; w's
// headers so far are carried over. It returns false, having written
// nothing, when the request cannot be taken over (HTTP/2, HTTP/1.0, HEAD,
// a body not read to its end, a ResponseWriter that cannot hijack, no
// server serving the parking, the parking closed).
// The caller's handler must return at once without touching w again, and
// call Finish on the Conn exactly once.
func (p *Parking) Take(w http.ResponseWriter, r *http.Request) (*Conn, bool) {
	if p == nil || r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.Method == http.MethodHead || !p.serving.Load() || p.isClosed() {
		return nil, false
	}
	var one [1]byte
	if n, err := r.Body.Read(one[:]); n != 0 || err != io.EOF {
		// Some of the body is unread: the connection does not stand at
		// the next request.
		return nil, false
	}
	header := w.Header().Clone()
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, false
	}
	c := &Conn{p: p, conn: conn, header: header, close: r.Close, kick: make(chan struct{}, 1)}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok {
		c.write, c.idle = srv.WriteTimeout, srv.IdleTimeout
		if c.idle == 0 {
			c.idle = srv.ReadTimeout // as net/http does
		}
	}
	p.busy.Add(1)
	if n := rw.Reader.Buffered(); n > 0 {
		// The client sent more (a pipelined request): keep it for the
		// server, and read nothing meanwhile.
		b, _ := rw.Reader.Peek(n)
		c.rest = bytes.Clone(b)
		c.read = true
	}
	return c, true
}

// A Conn is a taken-over connection whose response is being made: an
// http.ResponseWriter whose response Finish writes.
type Conn struct {
	p    *Parking
	conn net.Conn
	// write and idle are the server's WriteTimeout and idle timeout.
	write, idle time.Duration

	header http.Header
	status int
	body   []byte
	// close is set when the client asked to close the connection after
	// the response.
	close bool

	mu sync.Mutex
	// read is set once the connection is read no more: rest is what was
	// read (the start of the next request), or nothing when the client
	// hung up (gone).
	read bool
	gone bool
	rest []byte
	// finishing is set once Finish has begun: Interrupt leaves the
	// connection's deadlines alone from then on.
	finishing bool
	// kick wakes an Await that does not read (read is set).
	kick chan struct{}
	// one is the reader's buffer.
	one [1]byte
}

// Gone reports whether the client hung up (as Await found).
func (c *Conn) Gone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// Header is the response's header.
func (c *Conn) Header() http.Header { return c.header }

// WriteHeader sets the response's status; only the first call counts.
func (c *Conn) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

// Write adds p to the response's body.
func (c *Conn) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	c.body = append(c.body, p...)
	return len(p), nil
}

// Await blocks until the client sends something or hangs up (Gone), or
// Interrupt is called. What the client sends (the start of its next
// request) is kept for the server, and the connection is read no more.
// It is called from one goroutine at a time, before Finish.
func (c *Conn) Await() {
	// The read is the bottom of a waiting goroutine's stack: its frame
	// is kept small.
	if c.isRead() {
		<-c.kick
		return
	}
	n, err := c.conn.Read(c.one[:])
	c.afterRead(n, err)
}

func (c *Conn) isRead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read
}

func (c *Conn) afterRead(n int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case n == 1:
		c.rest, c.read = []byte{c.one[0]}, true
	case errors.Is(err, os.ErrDeadlineExceeded):
		// Interrupted: the next Await reads again, unless another
		// Interrupt comes first.
		_ = c.conn.SetReadDeadline(time.Time{})
		select {
		case <-c.kick:
		default:
		}
	default:
		c.read, c.gone = true, true
	}
}

// Interrupt makes the Await under way, or else the next one, return. It
// does not block, and may be called from any goroutine at any time.
func (c *Conn) Interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finishing {
		return
	}
	if !c.read {
		_ = c.conn.SetReadDeadline(aLongTimeAgo)
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Finish writes the response, then leaves the connection to wait for
// the client's next request (on a goroutine of its own), or closes it.
// The Conn must not be used after.
func (c *Conn) Finish() {
	defer c.p.busy.Done()
	c.mu.Lock()
	c.finishing = true
	read, gone := c.read, c.gone
	c.mu.Unlock()
	if gone {
		_ = c.conn.Close()
		return
	}
	closing := c.close || c.p.isClosed()
	if c.write > 0 {
		_ = c.conn.SetWriteDeadline(time.Now().Add(c.write))
	}
	_, err := c.conn.Write(c.response(closing))
	c.body = nil
	if err != nil || closing {
		_ = c.conn.Close()
		return
	}
	_ = c.conn.SetWriteDeadline(time.Time{})
	if read {
		c.handBack()
		return
	}
	c.p.mu.Lock()
	c.p.idlers[c] = struct{}{}
	c.p.mu.Unlock()
	if c.idle > 0 {
		_ = c.conn.SetReadDeadline(time.Now().Add(c.idle))
	} else {
		_ = c.conn.SetReadDeadline(time.Time{})
	}
	if c.p.isClosed() {
		_ = c.conn.SetReadDeadline(aLongTimeAgo)
	}
	go c.idleRead()
}

// idleRead waits, in the idle time, for the start of the client's next
// request, and hands the connection back with it.
func (c *Conn) idleRead() {
	if n, _ := c.conn.Read(c.one[:]); n == 1 {
		c.rest = []byte{c.one[0]}
	}
	c.handBack()
}

// handBack gives the connection to the server when the client has sent
// the start of a request, and closes it otherwise.
func (c *Conn) handBack() {
	c.p.mu.Lock()
	delete(c.p.idlers, c)
	c.p.mu.Unlock()
	if len(c.rest) == 0 {
		_ = c.conn.Close()
		return
	}
	_ = c.conn.SetReadDeadline(time.Time{})
	var back net.Conn = &prefixed{Conn: c.conn, rest: c.rest}
	select {
	case c.p.back <- back:
	case <-c.p.closed:
		_ = c.conn.Close()
	}
}

// response is the response as bytes, as net/http's connection writes a
// response its handler wrote whole: the status line; the handler's
// headers as http.Header writes them (sorted, invalid names dropped, line
// breaks in values made spaces), without those that frame the response;
// then the Date, the Content-Length, a Content-Type sniffed from the body
// when the handler set none (and no Content-Encoding), and "Connection:
// close" when closing. A 204 or 304 sends no body, a 304 no Content-Type.
// An equivalence test and a fuzz target hold it to net/http's responses.
func (c *Conn) response(closing bool) []byte {
	status := cmp.Or(c.status, http.StatusOK)
	bodyless := status == http.StatusNoContent || status == http.StatusNotModified || status < 200
	out := bytes.NewBuffer(make([]byte, 0, 256+len(c.body)))
	out.WriteString("HTTP/1.1 ")
	out.WriteString(strconv.Itoa(status))
	if text := http.StatusText(status); text != "" {
		out.WriteString(" " + text + "\r\n")
	} else {
		out.WriteString(" status code " + strconv.Itoa(status) + "\r\n")
	}
	exclude := framing
	if status == http.StatusNotModified {
		exclude = framing304
	}
	_ = c.header.WriteSubset(out, exclude)
	out.WriteString("Date: " + time.Now().UTC().Format(http.TimeFormat) + "\r\n")
	if !bodyless {
		out.WriteString("Content-Length: " + strconv.Itoa(len(c.body)) + "\r\n")
		if _, typed := c.header["Content-Type"]; !typed && c.header.Get("Content-Encoding") == "" && len(c.body) > 0 {
			out.WriteString("Content-Type: " + http.DetectContentType(c.body) + "\r\n")
		}
	}
	if closing {
		out.WriteString("Connection: close\r\n")
	}
	out.WriteString("\r\n")
	if !bodyless {
		out.Write(c.body)
	}
	return out.Bytes()
}

// framing are the headers the Conn writes itself, as net/http's
// connection does; framing304 adds the Content-Type a 304 does not send.
var (
	framing    = map[string]bool{"Content-Length": true, "Date": true, "Connection": true, "Transfer-Encoding": true}
	framing304 = map[string]bool{"Content-Length": true, "Date": true, "Connection": true, "Transfer-Encoding": true, "Content-Type": true}
)

// prefixed is a connection whose first bytes were read already.
type prefixed struct {
	net.Conn
	mu   sync.Mutex
	rest []byte
}

func (c *prefixed) Read(b []byte) (int, error) {
	c.mu.Lock()
	if len(c.rest) > 0 {
		n := copy(b, c.rest)
		c.rest = c.rest[n:]
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(b)
}
