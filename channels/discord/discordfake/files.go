package discordfake

import (
	"net/http"
	"strconv"
	"strings"
)

// File is a file a person attaches to a message: its name, the
// content_type the client declared, its bytes, and (when not 0) the size
// Discord reports instead of len(Data).
type File struct {
	Name, ContentType string
	Data              []byte
	Size              int
}

// Attachment is an attachment as Discord describes it in a message.
type Attachment struct {
	ID, Filename, ContentType, URL, ProxyURL string
	Size                                     int
}

func (a Attachment) json() map[string]any {
	out := map[string]any{"id": a.ID, "filename": a.Filename, "size": a.Size, "url": a.URL, "proxy_url": a.ProxyURL}
	if a.ContentType != "" {
		out["content_type"] = a.ContentType
	}
	return out
}

// cdnFile is a file the fake's CDN serves.
type cdnFile struct{ data []byte }

// attachLocked stores files for a message in channel and returns them as
// attachments with signed CDN URLs; callers hold s.mu.
func (s *Server) attachLocked(channel string, files []File) []Attachment {
	if len(files) == 0 {
		return nil
	}
	if s.cdn == nil {
		s.cdn = map[string]cdnFile{}
	}
	out := make([]Attachment, len(files))
	for i, f := range files {
		id := s.snowflakeLocked()
		path := "/attachments/" + channel + "/" + id + "/" + f.Name
		s.cdn[path] = cdnFile{data: f.Data}
		size := f.Size
		if size == 0 {
			size = len(f.Data)
		}
		signed := "?ex=6790a1b2&is=678f5032&hm=" + randomHex(32) + "&"
		out[i] = Attachment{ID: id, Filename: f.Name, ContentType: f.ContentType, Size: size,
			URL: s.srv.URL + path + signed, ProxyURL: s.srv.URL + path + signed}
	}
	return out
}

// SayWithFiles is Say with files attached: the message carries their
// attachment objects, and the fake's CDN serves their bytes.
func (s *Server) SayWithFiles(u User, channel, content, replyTo string, files ...File) string {
	return s.say(u, channel, content, replyTo, files)
}

// Downloads returns the CDN paths fetched, each with whether the request
// carried an Authorization header (the CDN needs none; a bot token sent
// there would leak).
func (s *Server) Downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.downloads...)
}

// serveAttachment serves a file on the CDN path. Like Discord's CDN, a URL
// without its signature (hm) is refused.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f, ok := s.cdn[r.URL.Path]
	if ok {
		s.downloads = append(s.downloads, r.URL.Path+" auth="+strconv.FormatBool(r.Header.Get("Authorization") != ""))
	}
	s.mu.Unlock()
	switch {
	case !ok:
		http.Error(w, "Not Found", http.StatusNotFound)
	case strings.TrimSpace(r.URL.Query().Get("hm")) == "":
		http.Error(w, "This content is no longer available.", http.StatusNotFound)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(f.data)
	}
}
