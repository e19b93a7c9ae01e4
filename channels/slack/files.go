package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/slack-go/slack/slackevents"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/download"
)

// slackFileHost is where Slack serves the files shared in a workspace.
const slackFileHost = "files.slack.com"

// messageFiles returns the files shared with a message (subtype
// file_share) as broker attachments. Nothing is downloaded until the
// broker, having checked that the person may answer, fetches them.
func (c *Channel) messageFiles(m *slackevents.MessageEvent) []broker.Attachment {
	if m.Message == nil {
		return nil
	}
	var out []broker.Attachment
	for _, f := range m.Message.Files {
		addr := f.URLPrivateDownload
		if addr == "" {
			addr = f.URLPrivate
		}
		out = append(out, broker.Attachment{Name: f.Name, Type: f.Mimetype, Size: int64(f.Size), Fetch: c.fileFetcher(addr)})
	}
	return out
}

// fileFetcher downloads a shared file from its url_private_download with
// the bot token (the app needs the files:read scope). The token goes only
// to Slack's file host or to the host of the configured api_url (a proxy,
// a test server), never to an address an event names elsewhere.
func (c *Channel) fileFetcher(addr string) func(ctx context.Context, max int64) ([]byte, error) {
	return func(ctx context.Context, max int64) ([]byte, error) {
		if addr == "" {
			return nil, errors.New("slack: the file has no download address (files:read missing, or a file from another workspace)")
		}
		u, err := url.Parse(addr)
		if err != nil || !c.fileHost(u) {
			return nil, fmt.Errorf("slack: file address on %q is not Slack's file host; not sending the token there", hostOf(u))
		}
		data, err := download.Get(ctx, c.httpc, addr, http.Header{"Authorization": {"Bearer " + c.secrets.botToken}}, max)
		if err != nil {
			return nil, fmt.Errorf("slack: %w", err)
		}
		return data, nil
	}
}

// fileHost reports whether u is on a host that may see the bot token.
func (c *Channel) fileHost(u *url.URL) bool {
	if u.Scheme != "https" && u.Scheme != "http" {
		return false
	}
	if strings.EqualFold(u.Hostname(), slackFileHost) && u.Scheme == "https" {
		return true
	}
	api, err := url.Parse(c.cfg.APIURL)
	return err == nil && strings.EqualFold(u.Host, api.Host) && u.Scheme == api.Scheme
}

func hostOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Host
}
