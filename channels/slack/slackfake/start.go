package slackfake

import (
	"net/http"
	"net/http/httptest"
	"time"
)

// Start starts a fake Slack outside a test (the bench tool's runs); it
// serves until Close.
func Start() *Server {
	s := &Server{
		calls: map[string]int{}, callTimes: map[string][]time.Time{}, failChan: map[string]string{}, failMethod: map[string]string{},
		limited: map[string]int{}, users: map[string]User{}, changed: make(chan struct{}),
	}
	s.sock.init()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/link/", s.serveSocket)
	mux.HandleFunc("/hooks/", s.serveHook)
	mux.HandleFunc("/files-pri/", s.serveFile)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/api"
	return s
}

// Close closes the socket-mode links and stops the server.
func (s *Server) Close() {
	s.sock.closeAll()
	s.srv.Close()
}
