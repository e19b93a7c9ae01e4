package longlived

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// short is the server's ReadTimeout and WriteTimeout in these tests; the
// handlers last several times longer.
const short = 300 * time.Millisecond

func newServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = short
	srv.Config.WriteTimeout = short
	// HTTP/1.1, and HTTP/2 cleartext for clients that speak it from the
	// first byte, as the bridge serves.
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// longPoll answers after 4×short, unless the request's context ends
// first, as a long-poll would.
func longPoll(w http.ResponseWriter, r *http.Request) {
	if _, err := io.ReadAll(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case <-time.After(4 * short):
	case <-r.Context().Done():
		return
	}
	fmt.Fprint(w, `{"status":"answered"}`)
}

// stream sends six events 0.5×short apart, as an event stream would.
func stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i := range 6 {
		if _, err := fmt.Fprintf(w, "data: %d\n\n", i); err != nil || rc.Flush() != nil {
			return
		}
		select {
		case <-time.After(short / 2):
		case <-r.Context().Done():
			return
		}
	}
}

func TestLongResponsesOutliveTheServerTimeouts(t *testing.T) {
	tests := []struct {
		name    string
		h       http.Handler
		method  string
		body    string
		want    string
		wantCut bool
	}{
		{"long-poll without a body", Handler(http.HandlerFunc(longPoll)), http.MethodGet, "", `{"status":"answered"}`, false},
		{"long-poll after a body", Handler(http.HandlerFunc(longPoll)), http.MethodPost, `{"wait":"10m"}`, `{"status":"answered"}`, false},
		{"event stream", Handler(http.HandlerFunc(stream)), http.MethodGet, "", "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n", false},
		// Without Handler the server's WriteTimeout cuts both off: this is
		// what the package is for.
		{"long-poll, unwrapped", http.HandlerFunc(longPoll), http.MethodGet, "", "", true},
		{"event stream, unwrapped", http.HandlerFunc(stream), http.MethodGet, "", "", true},
	}
	for _, proto := range []string{"HTTP/1.1", "h2c"} {
		for _, tt := range tests {
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				srv := newServer(t, tt.h)
				req, err := http.NewRequest(tt.method, srv.URL, strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				client := srv.Client()
				if proto == "h2c" {
					tr := &http.Transport{Protocols: new(http.Protocols)}
					tr.Protocols.SetUnencryptedHTTP2(true)
					t.Cleanup(tr.CloseIdleConnections)
					client = &http.Client{Transport: tr}
				}
				resp, err := client.Do(req)
				if err == nil && resp.ProtoMajor != map[string]int{"HTTP/1.1": 1, "h2c": 2}[proto] {
					t.Fatalf("served over %s, want %s", resp.Proto, proto)
				}
				var got []byte
				if err == nil {
					got, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				if tt.wantCut {
					if err == nil && string(got) == tt.want {
						t.Fatalf("the unwrapped response was not cut off: %q", got)
					}
					return
				}
				if err != nil {
					t.Fatalf("the response was cut off: %v (got %q)", err, got)
				}
				if string(got) != tt.want {
					t.Errorf("body = %q, want %q", got, tt.want)
				}
			})
		}
	}
}

// A wrapped route still reads its request under ReadTimeout.
func TestASlowBodyIsStillCutOff(t *testing.T) {
	read := make(chan error, 1)
	srv := newServer(t, Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		read <- err
	})))
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
	select {
	case err := <-read:
		if err == nil {
			t.Fatal("a body that never arrived was read without error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled body was waited for past the server's ReadTimeout")
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Fatalf("the server did not close the stalled connection: %v", err)
	}
}

func TestKeepAliveAfterALongResponse(t *testing.T) {
	srv := newServer(t, Handler(http.HandlerFunc(longPoll)))
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := range 2 {
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d on the same connection: %v", i+1, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != `{"status":"answered"}` {
			t.Fatalf("request %d: %q, %v", i+1, b, err)
		}
	}
}

// deadlineRecorder is a ResponseWriter that records the write deadlines
// set on it through http.ResponseController.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	set []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// TestDeadlinesMoveOnlyWhenOld checks which writes move the deadline: none
// of a response written at once over HTTP/1.1 (net/http's deadline from
// the request's start stands), the first write after refreshAge and not
// the one right after it, the end of a response that went on past
// refreshAge, and over HTTP/2 the first write after the lifted deadline.
func TestDeadlinesMoveOnlyWhenOld(t *testing.T) {
	const per = 400 * time.Millisecond // refreshAge: 50 ms
	age := refreshAge(per)
	run := func(proto int, h http.HandlerFunc) []time.Time {
		t.Helper()
		rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.ProtoMajor = proto
		r = r.WithContext(context.WithValue(r.Context(), http.ServerContextKey, &http.Server{WriteTimeout: per}))
		Handler(h).ServeHTTP(rec, r)
		return rec.set
	}
	write := func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("{}"))
	}

	if set := run(1, func(w http.ResponseWriter, _ *http.Request) { write(w) }); len(set) != 0 {
		t.Errorf("a response written at once moved the deadline %d times", len(set))
	}

	var before time.Time
	set := run(1, func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(age + 10*time.Millisecond)
		before = time.Now()
		write(w)
	})
	if len(set) != 1 || set[0].Before(before.Add(per)) || set[0].After(before.Add(per+age)) {
		t.Errorf("a late response set deadlines %v, want one, %v after its first write at %v", set, per, before)
	}

	set = run(1, func(w http.ResponseWriter, _ *http.Request) {
		write(w)
		time.Sleep(age + 10*time.Millisecond)
	})
	if len(set) != 1 {
		t.Errorf("a response that went on past %v set deadlines %v, want one for its end", age, set)
	}

	set = run(2, func(w http.ResponseWriter, _ *http.Request) { write(w) })
	if len(set) != 2 || !set[0].IsZero() || set[1].IsZero() {
		t.Errorf("over HTTP/2 the deadlines set were %v, want the lift then one for the first write", set)
	}
}
