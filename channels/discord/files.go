package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bwmarrin/discordgo"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/download"
)

// messageFiles returns the attachments of m as broker attachments.
// Nothing is downloaded until the broker, having checked that the person
// may answer, fetches them.
func (c *Channel) messageFiles(m *discordgo.Message) []broker.Attachment {
	var out []broker.Attachment
	for _, a := range m.Attachments {
		if a == nil {
			continue
		}
		out = append(out, broker.Attachment{Name: a.Filename, Type: a.ContentType, Size: int64(a.Size), Fetch: c.attachmentFetcher(a.URL)})
	}
	return out
}

// attachmentFetcher downloads an attachment from its URL on Discord's CDN.
// The URL is signed; the bot token is never sent with it.
func (c *Channel) attachmentFetcher(addr string) func(ctx context.Context, max int64) ([]byte, error) {
	return func(ctx context.Context, max int64) ([]byte, error) {
		u, err := url.Parse(addr)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, errors.New("discord: the attachment has no download address")
		}
		// The session's transport (which only redirects discord.com to a
		// configured api_url), without its overall timeout: ctx bounds it.
		hc := &http.Client{Transport: c.session.Client.Transport}
		data, err := download.Get(ctx, hc, addr, nil, max)
		if err != nil {
			return nil, fmt.Errorf("discord: %w", err)
		}
		return data, nil
	}
}
