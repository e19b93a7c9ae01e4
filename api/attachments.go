package api

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// attachment returns the bytes of file n of a question, to the agent that
// asked it: GET /v1/questions/{id}/attachments/{n}. Only files that the
// question's answers name are served. The type is the one sniffed when
// the file was stored, never one the sender declared; browsers are told
// not to sniff again, to save pictures or show them inline, and to save
// everything else under a cleaned name.
func (s *Server) attachment(w http.ResponseWriter, r *http.Request, agent string) {
	id := r.PathValue("id")
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		writeError(w, http.StatusBadRequest, "invalid", "n: "+strconv.Quote(r.PathValue("n"))+" is not a file number (files are numbered from 1, as in [Image #1])", "n")
		return
	}
	f, err := s.b.Attachment(r.Context(), agent, id, n)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType(f))
	disposition := "attachment"
	if strings.HasPrefix(f.Type, "image/") {
		disposition = "inline"
	}
	if cd := mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}); cd != "" {
		h.Set("Content-Disposition", cd)
	} else {
		h.Set("Content-Disposition", disposition)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("Content-Length", strconv.Itoa(len(f.Data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(f.Data)
	}
}

// contentType is the Content-Type of a stored file: its sniffed type, and
// for text the character set DetectContentType finds (UTF-8, or UTF-16
// after a byte-order mark).
func contentType(f *broker.File) string {
	if f.Type == "text/plain" {
		if ct := http.DetectContentType(f.Data); strings.HasPrefix(ct, "text/plain;") {
			return ct
		}
		return "text/plain; charset=utf-8"
	}
	return f.Type
}
