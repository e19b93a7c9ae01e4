package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// rawClient is the agents' HTTP/1.1 client in the load runs: keep-alive
// connections to plain-HTTP bridges, one request at a time on each, and
// nothing else. The tool shares the machine with the bridges it measures,
// and net/http's client costs more CPU per request than the server it
// talks to (a reader and a writer goroutine per connection, a request and
// a response with their header maps): on two cores, that bounded how many
// cycles per second the bridge was given. rawClient writes a request in
// one system call and parses the response in place.
//
// It speaks only what the bridge's API answers with: a status line,
// headers, and a body of Content-Length bytes, chunked, or up to the end
// of the connection. A connection is closed after an error, a
// "Connection: close", or a body it could not read to its end.
type rawClient struct {
	mu   sync.Mutex
	idle map[string][]*rawConn // by host:port, the latest last
	max  int                   // idle connections kept per host
	dial net.Dialer
}

type rawConn struct {
	c  net.Conn
	br *bufio.Reader
	wb []byte
	// reused is set once the connection has carried a response.
	reused bool
	// idleSince is when it went back to the pool.
	idleSince time.Time
}

// probeAfter is how long a connection may sit in the pool before it is
// checked (closedByPeer) when taken again: the bridge closes keep-alive
// connections idle for server.idle_timeout (90 s by default), and a
// request written on one of those fails. net/http's client learns of
// such a close at once, from the reader goroutine each of its
// connections has.
var probeAfter = time.Second

func newRawClient(maxIdle int) *rawClient {
	return &rawClient{idle: map[string][]*rawConn{}, max: max(maxIdle, 1), dial: net.Dialer{Timeout: 5 * time.Second}}
}

// errClosedIdle is a reused connection that ended before its response
// began: the server closed it while it was idle, and saw nothing of the
// request.
var errClosedIdle = errors.New("the server closed an idle connection")

// do sends one request to rawURL ("http://host:port/path?query") with
// body (a JSON object, or nil for none) and returns the response's status
// and body. A GET that meets a connection the server closed while it was
// idle is sent again on a new one, as net/http's client does; other
// methods report it.
func (rc *rawClient) do(ctx context.Context, method, rawURL string, body []byte) (int, []byte, error) {
	host, target, err := splitURL(rawURL)
	if err != nil {
		return 0, nil, err
	}
	for attempt := 0; ; attempt++ {
		cn, err := rc.get(ctx, host)
		if err != nil {
			return 0, nil, err
		}
		code, resp, keep, err := cn.roundTrip(ctx, method, host, target, body)
		if err == nil && keep {
			rc.put(host, cn)
		} else {
			cn.c.Close()
		}
		if errors.Is(err, errClosedIdle) && method == "GET" && attempt == 0 {
			continue
		}
		return code, resp, err
	}
}

// splitURL returns the host:port and request target of a plain-HTTP URL.
func splitURL(rawURL string) (host, target string, err error) {
	rest, ok := strings.CutPrefix(rawURL, "http://")
	if !ok {
		return "", "", fmt.Errorf("%q: only http:// URLs are sent", rawURL)
	}
	host, target = rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, target = rest[:i], rest[i:]
	}
	if host == "" {
		return "", "", fmt.Errorf("%q: no host", rawURL)
	}
	return host, target, nil
}

func (rc *rawClient) get(ctx context.Context, host string) (*rawConn, error) {
	for {
		rc.mu.Lock()
		l := rc.idle[host]
		if len(l) == 0 {
			rc.mu.Unlock()
			break
		}
		cn := l[len(l)-1]
		rc.idle[host] = l[:len(l)-1]
		rc.mu.Unlock()
		if time.Since(cn.idleSince) < probeAfter || !closedByPeer(cn.c) {
			return cn, nil
		}
		cn.c.Close()
	}
	c, err := rc.dial.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, br: bufio.NewReaderSize(c, 4096)}, nil
}

func (rc *rawClient) put(host string, cn *rawConn) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.idle[host]) >= rc.max {
		cn.c.Close()
		return
	}
	cn.idleSince = time.Now()
	rc.idle[host] = append(rc.idle[host], cn)
}

// close closes the idle connections.
func (rc *rawClient) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for host, l := range rc.idle {
		for _, cn := range l {
			cn.c.Close()
		}
		delete(rc.idle, host)
	}
}

// aLongTimeAgo is a deadline that has passed: setting it ends a blocked
// read or write at once.
var aLongTimeAgo = time.Unix(1, 0)

// roundTrip writes the request and reads its response. keep reports
// whether the connection may carry another request.
func (cn *rawConn) roundTrip(ctx context.Context, method, host, target string, body []byte) (code int, resp []byte, keep bool, err error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, false, err
	}
	deadline, _ := ctx.Deadline()
	if err := cn.c.SetDeadline(deadline); err != nil {
		return 0, nil, false, err
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { _ = cn.c.SetDeadline(aLongTimeAgo) })
		defer func() {
			if !stop() {
				// The context ended: the error is the context's, and
				// the connection is not reused.
				code, resp, keep, err = 0, nil, false, ctx.Err()
			}
		}()
	}
	if deadline != (time.Time{}) {
		defer func() {
			if err != nil && !time.Now().Before(deadline) {
				// The connection's deadline, which is the context's,
				// passed: its timer may fire before the context's.
				err = context.DeadlineExceeded
			}
		}()
	}
	w := append(cn.wb[:0], method...)
	w = append(w, ' ')
	w = append(w, target...)
	w = append(w, " HTTP/1.1\r\nHost: "...)
	w = append(w, host...)
	w = append(w, "\r\nUser-Agent: askbench\r\n"...)
	if body != nil {
		w = append(w, "Content-Type: application/json\r\nContent-Length: "...)
		w = strconv.AppendInt(w, int64(len(body)), 10)
		w = append(w, "\r\n"...)
	}
	w = append(w, "\r\n"...)
	w = append(w, body...)
	cn.wb = w
	if _, err := cn.c.Write(w); err != nil {
		if cn.reused {
			return 0, nil, false, fmt.Errorf("%w: %w", errClosedIdle, err)
		}
		return 0, nil, false, err
	}
	code, resp, keep, err = cn.readResponse(method)
	if err != nil && cn.reused && code == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err)) {
		err = fmt.Errorf("%w: %w", errClosedIdle, err)
	}
	cn.reused = true
	return code, resp, keep, err
}

// isReset reports a connection reset by the peer.
func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// readResponse reads a status line, the headers and the body. code is 0
// until the status line has been read.
func (cn *rawConn) readResponse(method string) (code int, body []byte, keep bool, err error) {
	// Informational responses (a waiting ask's 103 with its warnings)
	// come before the answer; they are read past, at most 5 of them as
	// net/http's client does.
	for range 5 {
		code, body, keep, err = cn.readOne(method)
		if err != nil || code/100 != 1 || code == 101 {
			return code, body, keep, err
		}
	}
	return code, nil, false, fmt.Errorf("status %d: too many informational responses", code)
}

// readOne reads one response; an informational one has no body.
func (cn *rawConn) readOne(method string) (code int, body []byte, keep bool, err error) {
	line, err := cn.line()
	if err != nil {
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return 0, nil, false, io.EOF
		}
		return 0, nil, false, err
	}
	proto, rest, ok := strings.Cut(string(line), " ")
	if !ok || (proto != "HTTP/1.1" && proto != "HTTP/1.0") || len(rest) < 3 {
		return 0, nil, false, fmt.Errorf("malformed status line %q", line)
	}
	code, err = strconv.Atoi(rest[:3])
	if err != nil || code < 100 || code > 999 {
		return 0, nil, false, fmt.Errorf("malformed status line %q", line)
	}
	keep = proto == "HTTP/1.1"
	length, chunked := -1, false
	for {
		line, err := cn.line()
		if err != nil {
			return code, nil, false, fmt.Errorf("status %d: headers: %w", code, err)
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return code, nil, false, fmt.Errorf("status %d: malformed header %q", code, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "Content-Length"):
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 {
				return code, nil, false, fmt.Errorf("status %d: bad Content-Length %q", code, value)
			}
			length = n
		case asciiEqualFold(name, "Transfer-Encoding"):
			if !asciiEqualFold(value, "chunked") {
				return code, nil, false, fmt.Errorf("status %d: unsupported Transfer-Encoding %q", code, value)
			}
			chunked = true
		case asciiEqualFold(name, "Connection"):
			if asciiEqualFold(value, "close") {
				keep = false
			} else if asciiEqualFold(value, "keep-alive") {
				keep = true
			}
		}
	}
	switch {
	case code == 101:
		return code, nil, false, fmt.Errorf("status %d: switching protocols is not expected", code)
	case code/100 == 1:
		return code, nil, keep, nil
	case method == "HEAD" || code == 204 || code == 304:
		return code, nil, keep, nil
	case chunked:
		body, err = cn.chunked()
	case length >= 0:
		body = make([]byte, length)
		_, err = io.ReadFull(cn.br, body)
	default:
		body, err = io.ReadAll(cn.br)
		keep = false
	}
	if err != nil {
		return code, nil, false, fmt.Errorf("status %d: body: %w", code, err)
	}
	return code, body, keep, nil
}

// line reads one header line without its CRLF. A line longer than the
// reader's buffer is an error.
func (cn *rawConn) line() ([]byte, error) {
	l, err := cn.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(l) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return l, err
	}
	l = l[:len(l)-1]
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, nil
}

// chunked reads a chunked body and its trailer.
func (cn *rawConn) chunked() ([]byte, error) {
	var body []byte
	for {
		line, err := cn.line()
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 31)
		if err != nil {
			return nil, fmt.Errorf("bad chunk size %q", line)
		}
		if n == 0 {
			for {
				// The trailer, up to its empty line.
				l, err := cn.line()
				if err != nil {
					return nil, err
				}
				if len(l) == 0 {
					return body, nil
				}
			}
		}
		start := len(body)
		body = append(body, make([]byte, n)...)
		if _, err := io.ReadFull(cn.br, body[start:]); err != nil {
			return nil, err
		}
		if l, err := cn.line(); err != nil || len(l) != 0 {
			return nil, fmt.Errorf("chunk of %d bytes not followed by CRLF", n)
		}
	}
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// closedByPeer reports whether an idle connection can no longer carry a
// request: the peer closed it, it holds bytes nobody asked for, or it
// failed. It peeks without blocking and without consuming anything.
func closedByPeer(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	open := false
	err = raw.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read yet is the only state of a healthy idle
		// connection; 0 bytes is the peer's close, any byte a stray.
		open = errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
		return true
	})
	return err != nil || !open
}
