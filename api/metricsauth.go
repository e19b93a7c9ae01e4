package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// Guarded serves the metrics like Handler, but with key set a request
// must carry "Authorization: Bearer <key>"; otherwise it gets 401. The
// key is compared as a digest in constant time.
func (m *Metrics) Guarded(key string) http.Handler {
	h := m.Handler()
	if key == "" {
		return h
	}
	want := sha256.Sum256([]byte(key))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="askbridge metrics"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong metrics key: send Authorization: Bearer <the key in metrics.key_env>", "")
			return
		}
		h.ServeHTTP(w, r)
	})
}
