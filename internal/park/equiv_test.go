package park_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/park"
)

// reply is what a handler writes: a status (0: no WriteHeader call),
// headers added in order, and a body.
type reply struct {
	status int
	header [][2]string
	body   []byte
}

func (r reply) writeTo(w http.ResponseWriter) {
	for _, kv := range r.header {
		w.Header().Add(kv[0], kv[1])
	}
	if r.status != 0 {
		w.WriteHeader(r.status)
	}
	_, _ = w.Write(r.body)
}

// twin is a server that answers GET /plain with net/http's own
// response, and GET /park on a parked connection, both writing the same
// reply.
type twin struct {
	*bridge
	now      atomic.Pointer[reply]
	notTaken atomic.Int64
}

func newTwin(t testing.TB) *twin {
	tw := &twin{}
	var p *park.Parking
	tw.bridge = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := *tw.now.Load()
		if r.URL.Path != "/park" {
			rep.writeTo(w)
			return
		}
		c, ok := p.Take(w, r)
		if !ok {
			tw.notTaken.Add(1)
			return
		}
		rep.writeTo(c)
		c.Finish()
	}))
	p = tw.parking
	return tw
}

// wire is a response as its bytes say: the status line, each header's
// values in order, and the body (read by its Content-Length or chunks).
type wire struct {
	status  string
	header  map[string][]string
	body    []byte
	chunked bool
}

// exchange sends one GET for path on a connection of its own and reads
// the response off the wire, without net/http's checks of what it reads.
func (tw *twin) exchange(t testing.TB, path string, closing bool) wire {
	t.Helper()
	c, err := net.Dial("tcp", tw.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "GET " + path + " HTTP/1.1\r\nHost: x\r\n"
	if closing {
		req += "Connection: close\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	tp := textproto.NewReader(br)
	var w wire
	if w.status, err = tp.ReadLine(); err != nil {
		t.Fatalf("%s: status line: %v", path, err)
	}
	w.header = map[string][]string{}
	for {
		line, err := tp.ReadLine()
		if err != nil {
			t.Fatalf("%s: header: %v", path, err)
		}
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("%s: header line %q", path, line)
		}
		w.header[k] = append(w.header[k], v)
	}
	switch {
	case slices.Equal(w.header["Transfer-Encoding"], []string{"chunked"}):
		w.chunked = true
		w.body, err = io.ReadAll(httputil.NewChunkedReader(br))
	case len(w.header["Content-Length"]) == 1:
		var n int
		if _, err = fmt.Sscan(w.header["Content-Length"][0], &n); err == nil {
			w.body = make([]byte, n)
			_, err = io.ReadFull(br, w.body)
		}
	}
	if err != nil {
		t.Fatalf("%s: body: %v", path, err)
	}
	return w
}

// checkSame writes rep through net/http and through a parked connection
// and checks that the client reads the same response from both: status
// line, every header and its values in order, and body. Only the Date
// differs (both must send one); a body net/http sends in chunks (past
// its 2 KiB buffer) parks with a Content-Length.
func checkSame(t *testing.T, tw *twin, rep reply, closing bool) {
	tw.now.Store(&rep)
	std := tw.exchange(t, "/plain", closing)
	parked := tw.exchange(t, "/park", closing)
	if tw.notTaken.Load() != 0 {
		t.Fatal("a request was not parked")
	}
	for _, w := range []*wire{&std, &parked} {
		if d := w.header["Date"]; len(d) != 1 {
			t.Fatalf("Date: %q, want one", d)
		} else if _, err := http.ParseTime(d[0]); err != nil {
			t.Fatalf("Date %q: %v", d[0], err)
		}
		delete(w.header, "Date")
	}
	if std.chunked {
		if got := parked.header["Content-Length"]; !slices.Equal(got, []string{fmt.Sprint(len(parked.body))}) {
			t.Fatalf("parked Content-Length %q for %d bytes", got, len(parked.body))
		}
		delete(std.header, "Transfer-Encoding")
		delete(parked.header, "Content-Length")
	}
	if std.status != parked.status || !equalHeaders(std.header, parked.header) || !bytes.Equal(std.body, parked.body) {
		t.Fatalf("for %+v (close %v)\nnet/http: %q %q %q\n  parked: %q %q %q", rep, closing,
			std.status, std.header, std.body, parked.status, parked.header, parked.body)
	}
}

func equalHeaders(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// replies are answers of every kind a parked long-poll gives, and the
// header values and names a handler might be handed.
var replies = []reply{
	{status: 200, header: [][2]string{{"Content-Type", "application/json"}}, body: []byte(`{"id":"k7m2qx","status":"answered"}` + "\n")},
	{status: 202, header: [][2]string{{"Content-Type", "application/json"}, {"Retry-After", "1"}}, body: []byte(`{"id":"k7m2qx","status":"pending"}`)},
	{status: 404, header: [][2]string{{"Content-Type", "application/json"}}, body: []byte(`{"error":{"code":"not_found"}}`)},
	{status: 500, body: []byte("plain error")},
	{status: 503, header: [][2]string{{"Content-Type", "application/json"}}, body: []byte(`{}`)},
	{body: []byte("<html><body>sniffed</body></html>")},
	{status: 200},
	{status: 204, body: []byte("dropped")},
	{status: 304, header: [][2]string{{"Content-Type", "text/plain"}, {"Etag", `"x"`}}, body: []byte("dropped")},
	{status: 299, body: []byte("a status with no text")},
	{status: 200, header: [][2]string{{"Content-Type", ""}}, body: []byte("no type, none sniffed")},
	{status: 200, header: [][2]string{{"Content-Encoding", "gzip"}}, body: []byte("\x1f\x8b\x08 not sniffed")},
	{status: 200, header: [][2]string{{"X-Note", "one\r\nSet-Cookie: evil=1"}, {"X-Note", " \t padded \u00a0"}, {"X-Trim", "\v\f"}}, body: []byte("{}")},
	{status: 200, header: [][2]string{{"Bad Name", "v"}, {"Bad\r\nSet-Cookie: evil", "1"}, {"x-lower", "canonical"}, {"Ünicode", "v"}}, body: []byte("{}")},
	{status: 200, header: [][2]string{{"Content-Type", "application/json"}}, body: bytes.Repeat([]byte("long context "), 400)},
}

// TestResponsesMatchNetHTTP: a parked connection's response is the one
// net/http writes for the same handler, but for its Date.
func TestResponsesMatchNetHTTP(t *testing.T) {
	tw := newTwin(t)
	for i, rep := range replies {
		for _, closing := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/close=%v", i, closing), func(t *testing.T) { checkSame(t, tw, rep, closing) })
		}
	}
}

// framing are the headers the Conn writes itself, as net/http's
// connection does (or, for Trailer, which park does not send): a handler
// of a parked request does not set them.
var framing = []string{"Content-Length", "Transfer-Encoding", "Connection", "Date", "Trailer"}

func FuzzResponsesMatchNetHTTP(f *testing.F) {
	tw := newTwin(f)
	for _, r := range replies {
		var kv [2][2]string
		copy(kv[:], r.header)
		f.Add(r.status, kv[0][0], kv[0][1], kv[1][0], kv[1][1], r.body, false)
	}
	f.Fuzz(func(t *testing.T, status int, k1, v1, k2, v2 string, body []byte, closing bool) {
		if status != 0 {
			// Final statuses: 1xx are interim responses, which a parked
			// request does not send.
			status = 200 + (status%400+400)%400
		}
		rep := reply{status: status, body: body}
		for _, kv := range [][2]string{{k1, v1}, {k2, v2}} {
			if kv[0] == "" || slices.Contains(framing, http.CanonicalHeaderKey(kv[0])) || strings.HasPrefix(kv[0], http.TrailerPrefix) {
				continue
			}
			rep.header = append(rep.header, kv)
		}
		checkSame(t, tw, rep, closing)
	})
}
