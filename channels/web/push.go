package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// The inbox as an installable app, and its notifications: the page side.
//
//	GET    /manifest.webmanifest      the web app manifest (assets/manifest.webmanifest)
//	GET    /sw.js                     the service worker (assets/sw.js), served at
//	                                  the root so that its scope is the whole inbox
//	GET    /inbox/push/key            {"public_key"}: the VAPID public key a browser
//	                                  subscribes with; 404 when notifications are off
//	GET    /inbox/push/subscriptions  {"subscriptions":[{"endpoint","device","created_at"}]}:
//	                                  the signed-in person's devices
//	POST   /inbox/push/subscriptions  {"endpoint","keys":{"p256dh","auth"},"device"}
//	                                  → {"ok","reply"}: turn notifications on for this device
//	DELETE /inbox/push/subscriptions  {"endpoint"} → {"ok","reply"}: turn them off
//
// A subscription belongs to who is signed in: a person by id, or on a
// page where nobody signs in as a person, the page's user (Config.Name),
// who is notified of the questions anyone may answer.

// pushRoutes adds the routes above to mux.
func (c *Channel) pushRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /manifest.webmanifest", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/manifest+json")
		http.ServeFileFS(w, r, c.static, "manifest.webmanifest")
	})
	mux.HandleFunc("GET /sw.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, c.static, "sw.js")
	})
	mux.HandleFunc("GET /inbox/push/key", c.servePushKey)
	mux.HandleFunc("GET /inbox/push/subscriptions", c.servePushList)
	mux.HandleFunc("POST /inbox/push/subscriptions", c.posted(c.servePushSave))
	mux.HandleFunc("DELETE /inbox/push/subscriptions", c.posted(c.servePushDelete))
}

// pushReply is the reply to a push endpoint, in the language of the
// inbox's own words for who asks with r (lang.go).
func (c *Channel) pushReply(r *http.Request, ok bool, id string, args ...any) reply {
	who, _, _ := c.auth.who(r, c.now())
	return reply{OK: ok, Reply: i18n.For(c.pageLocale(readerOf(who, r))).T(id, args...)}
}

// pushRefusal is the reply refusing a push request for err, in the same
// language as pushReply: a body the bridge could not read or a person with
// too many devices in the bridge's words, a subscription the store
// refuses with the store's reason (it names the fields of the browser's
// subscription), a JSON error as jsonerr wrote it.
func (c *Channel) pushRefusal(r *http.Request, err error) reply {
	who, _, _ := c.auth.who(r, c.now())
	p := c.words(who, r)
	switch {
	case errors.Is(err, broker.ErrLimit):
		return reply{Reply: p.T("inbox.reply.push_limit", broker.MaxPushSubscriptions)}
	case errors.Is(err, broker.ErrInvalid):
		return reply{Reply: p.T("push.refused", reason(err))}
	}
	return refused(p, err)
}

// servePushKey returns the VAPID public key.
func (c *Channel) servePushKey(w http.ResponseWriter, r *http.Request) {
	if c.push == nil {
		writeJSON(w, http.StatusNotFound, c.pushReply(r, false, "push.off"))
		return
	}
	k, err := c.push.vapidKeys(r.Context())
	if err != nil {
		c.log.Error("web push keys", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, c.pushReply(r, false, "push.store"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"public_key": k.Public})
}

// pushDevice is one device as the page lists it.
type pushDevice struct {
	Endpoint  string    `json:"endpoint"`
	Device    string    `json:"device,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// servePushList lists the signed-in person's devices.
func (c *Channel) servePushList(w http.ResponseWriter, r *http.Request) {
	who, ok := c.pushUser(w, r)
	if !ok {
		return
	}
	subs, err := c.push.store.PushSubscriptions(r.Context(), []string{who})
	if err != nil {
		c.log.Error("list push subscriptions", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, c.pushReply(r, false, "push.store"))
		return
	}
	out := make([]pushDevice, 0, len(subs))
	for _, s := range subs {
		out = append(out, pushDevice{Endpoint: s.Endpoint, Device: s.Device, CreatedAt: s.CreatedAt})
	}
	writeJSON(w, http.StatusOK, map[string]any{"subscriptions": out})
}

// servePushSave turns notifications on for the device that posts.
func (c *Channel) servePushSave(w http.ResponseWriter, r *http.Request) {
	who, ok := c.pushUser(w, r)
	if !ok {
		return
	}
	var body struct {
		Endpoint string `json:"endpoint"`
		Keys     struct {
			P256dh string `json:"p256dh"`
			Auth   string `json:"auth"`
		} `json:"keys"`
		Device string `json:"device"`
		// ExpirationTime is part of a browser's PushSubscription JSON;
		// the push service says when an endpoint is gone (404, 410).
		ExpirationTime *float64 `json:"expirationTime"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, c.pushRefusal(r, err))
		return
	}
	err := c.push.store.SavePushSubscription(r.Context(), broker.PushSubscription{
		Person: who, Endpoint: body.Endpoint, P256dh: body.Keys.P256dh, Auth: body.Keys.Auth,
		Device: strings.TrimSpace(body.Device), CreatedAt: c.now(),
	})
	c.push.changed()
	switch {
	case errors.Is(err, broker.ErrInvalid) || errors.Is(err, broker.ErrLimit):
		writeJSON(w, http.StatusBadRequest, c.pushRefusal(r, err))
	case err != nil:
		c.log.Error("save push subscription", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, c.pushReply(r, false, "push.store"))
	default:
		writeJSON(w, http.StatusOK, c.pushReply(r, true, "push.on"))
	}
}

// servePushDelete turns notifications off for one of the person's devices.
func (c *Channel) servePushDelete(w http.ResponseWriter, r *http.Request) {
	who, ok := c.pushUser(w, r)
	if !ok {
		return
	}
	var body struct {
		Endpoint string `json:"endpoint"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, c.pushRefusal(r, err))
		return
	}
	gone, err := c.push.store.DeletePushSubscription(r.Context(), who, body.Endpoint)
	c.push.changed()
	switch {
	case err != nil:
		c.log.Error("delete push subscription", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, c.pushReply(r, false, "push.store"))
	case !gone:
		writeJSON(w, http.StatusNotFound, c.pushReply(r, false, "push.no_device"))
	default:
		writeJSON(w, http.StatusOK, c.pushReply(r, true, "push.removed"))
	}
}

// pushUser returns whose subscriptions r reads or changes, and false when
// it has answered: notifications off, or not signed in.
func (c *Channel) pushUser(w http.ResponseWriter, r *http.Request) (string, bool) {
	if c.push == nil {
		writeJSON(w, http.StatusNotFound, c.pushReply(r, false, "push.off"))
		return "", false
	}
	who, ok := c.signedIn(w, r)
	if !ok {
		return "", false
	}
	return who.User, true
}

// reason is an error's text without the store's prefix and the sentinel's
// words ("sqlite: save push subscription: invalid input: "), for a person.
func reason(err error) string {
	s := err.Error()
	for _, sentinel := range []error{broker.ErrInvalid, broker.ErrLimit} {
		if i := strings.LastIndex(s, sentinel.Error()+": "); i >= 0 {
			return s[i+len(sentinel.Error())+2:]
		}
	}
	return s
}

// HasPushSubscription reports whether any of people (person ids) has
// turned notifications on in some device, so that a new question for them
// reaches someone even with no inbox page open. Without notifications it
// is false.
func (c *Channel) HasPushSubscription(ctx context.Context, people []string) (bool, error) {
	if c.push == nil {
		return false, nil
	}
	return c.push.store.HasPushSubscription(ctx, people)
}
