package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// CommandRequest is a text command from a text-only channel.
type CommandRequest struct {
	Channel string `json:"channel"`
	Chat    string `json:"chat"`
	// User names the person when no responder key is configured; with
	// responder keys, the key says who answers and User is ignored.
	User string `json:"user"`
	Text string `json:"text"`
}

// CommandResponse says what the command did.
type CommandResponse struct {
	OK       bool           `json:"ok"`
	Reply    string         `json:"reply"`
	Question *broker.Result `json:"question,omitempty"`
}

// LocalResponder is the answering user when no responder key is configured.
const LocalResponder = "local"

func (s *Server) command(w http.ResponseWriter, r *http.Request) {
	who := broker.Responder{User: LocalResponder, Name: LocalResponder}
	switch {
	case len(s.resps) > 0:
		k, ok := match(s.resps, r.Header)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="askbridge"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong responder key: send Authorization: Bearer <key>", "")
			return
		}
		who.User, who.Name = k.User, k.Name
		if who.User == "" {
			who.User = k.Name
		}
	case !s.cfg.Loopback:
		writeError(w, http.StatusUnauthorized, "unauthorized", "no responder keys are configured on a server that listens beyond loopback", "")
		return
	}
	var req CommandRequest
	if decode(w, r, s.cfg.MaxBody, &req) {
		return
	}
	if req.Channel == "" {
		req.Channel = s.cfg.TextChannels[0]
	}
	if !slices.Contains(s.cfg.TextChannels, req.Channel) {
		writeError(w, http.StatusBadRequest, "invalid", "channel: "+req.Channel+" is not a text channel; use one of "+strings.Join(s.cfg.TextChannels, ", "), "channel")
		return
	}
	if strings.TrimSpace(req.Text) == "" {
		writeError(w, http.StatusBadRequest, "invalid", "text: must not be empty; send a command such as /answer k7m2qx 2", "text")
		return
	}
	if len(s.resps) == 0 && strings.TrimSpace(req.User) != "" {
		who.User, who.Name = req.User, req.User
	}
	reply := s.b.HandleInbound(r.Context(), broker.Inbound{
		Channel: req.Channel, Chat: req.Chat, User: who.User, Name: who.Name, Text: req.Text,
	})
	out := CommandResponse{OK: reply.OK, Reply: reply.Text}
	if reply.Ignored {
		out.Reply = "Not a command. Use /answer <id> <choice>, /decline <id> [reason], /discuss <id> [message] or /pending."
	}
	if reply.Question != nil && (reply.OK || errors.Is(reply.Err, broker.ErrClosed)) {
		res := reply.Question.Result()
		out.Question = &res
	}
	writeJSON(w, commandStatus(reply), out)
}

// commandStatus maps a reply to a status code, so scripts can tell a
// recorded answer from a refusal without reading the sentence: a refusal
// has the status of its error in the one table (StatusOf), and a command
// that was not understood, or whose refusal names no known error, is a
// 400.
func commandStatus(r broker.Reply) int {
	switch {
	case r.OK:
		return http.StatusOK
	case r.Ignored || r.Err == nil:
		return http.StatusBadRequest
	}
	if st := StatusOf(r.Err).Status; st != http.StatusInternalServerError {
		return st
	}
	return http.StatusBadRequest
}
