package main

import (
	"log/slog"
	"net/http"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/channels/builtin"
	"github.com/askbridge/askbridge/internal/edge"
)

// guard puts the edge checks (Host, proxy, cross-site, content type) in
// front of the whole server.
func guard(cfg bridgeconfig.Config, w *builtin.Wiring, srv http.Handler, log *slog.Logger) (http.Handler, error) {
	return edge.New(edge.Config{
		Listen: cfg.Listen, PublicURL: cfg.Server.PublicURL, AllowedHosts: cfg.Server.AllowedHosts,
		Webhooks:  w.Webhooks,
		AgentKeys: len(cfg.Agents) > 0, ResponderKeys: len(cfg.Responders) > 0,
		InboxLocked: cfg.Channels.InboxLocked(cfg.People),
		Logger:      log.With("component", "edge"),
	}, srv)
}
