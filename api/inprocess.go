package api

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
)

// Transport returns an http.RoundTripper that serves every request with
// this server's own handler, in this process and without a network: the
// SDK client (package client) over it speaks the API's contract, with its
// authentication, limits, waits and error answers, to a server it shares
// a process with. The MCP endpoint of bridge serve asks through it, so
// that its tools and the HTTP API cannot drift apart.
//
// The answer is read whole before RoundTrip returns, which suits the
// API's JSON answers and long-polls; an event stream does not end, and is
// not for this transport.
func (s *Server) Transport() http.RoundTripper { return inProcess{s} }

type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	w := &bufferedWriter{header: http.Header{}, trace: httptrace.ContextClientTrace(r.Context())}
	// A RoundTripper must not change the request: the handler gets a
	// shallow copy, with the body the server would see.
	in := r.Clone(r.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = r.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	t.h.ServeHTTP(w, in)
	if r.Body != nil {
		_ = r.Body.Close()
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(&w.body),
		ContentLength: int64(w.body.Len()),
		Request:       r,
	}, nil
}

// bufferedWriter is the http.ResponseWriter of an in-process request.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	// trace is the request's client trace, told of informational
	// responses as a network client's would be.
	trace *httptrace.ClientTrace
}

func (w *bufferedWriter) Header() http.Header { return w.header }

// WriteHeader sets the status; an informational one (1xx) is handed to
// the client trace's Got1xxResponse, with the headers set so far, as
// net/http's transport does, and is not the answer's status.
func (w *bufferedWriter) WriteHeader(status int) {
	if status >= 100 && status <= 199 && status != http.StatusSwitchingProtocols {
		if w.status == 0 && w.trace != nil && w.trace.Got1xxResponse != nil {
			_ = w.trace.Got1xxResponse(status, textproto.MIMEHeader(w.header.Clone()))
		}
		return
	}
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// Flush does nothing: the answer is handed over whole.
func (w *bufferedWriter) Flush() {}
