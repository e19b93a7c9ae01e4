package telegramfake

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxGetFile is the largest file the Bot API lets a bot download (20 MB).
const maxGetFile = 20 << 20

// storedFile is a file a person sent.
type storedFile struct {
	id, unique, path string
	data             []byte
	// size is the size Telegram reports, normally len(data).
	size int
}

// addFile stores data as a new file; callers hold s.mu.
func (s *Server) addFile(dir, ext string, data []byte) *storedFile {
	if s.files == nil {
		s.files = map[string]*storedFile{}
	}
	n := strconv.Itoa(len(s.files) + 1)
	f := &storedFile{id: "BQACAgIAAxkBAAI" + n, unique: "AgAD" + n, path: dir + "/file_" + n + ext, data: data, size: len(data)}
	s.files[f.id] = f
	return f
}

// fileJSON is the File object of f.
func fileJSON(f *storedFile) map[string]any {
	return map[string]any{"file_id": f.id, "file_unique_id": f.unique, "file_size": f.size, "file_path": f.path}
}

// getFile answers like the Bot API: the File with its file_path, or 400
// for an unknown id or a file over 20 MB.
func (s *Server) getFile(p url.Values) (any, *Failure) {
	f, ok := s.files[p.Get("file_id")]
	switch {
	case !ok:
		return nil, badRequest("invalid file_id")
	case f.size > maxGetFile:
		return nil, badRequest("file is too big")
	}
	return fileJSON(f), nil
}

// serveFile serves GET /file/bot<token>/<file_path>.
func (s *Server) serveFile(w http.ResponseWriter, rest string) {
	token, path, ok := strings.Cut(rest, "/")
	if !ok || token != s.token {
		http.Error(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	var data []byte
	found := false
	for _, f := range s.files {
		if f.path == path {
			data, found = f.data, true
		}
	}
	s.calls = append(s.calls, Call{Method: "download", Params: url.Values{"file_path": {path}}})
	s.notify()
	s.mu.Unlock()
	if !found {
		http.Error(w, `{"ok":false,"error_code":404,"description":"Not Found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

// SendPhoto makes from send a photo with a caption, optionally as a reply
// to message replyTo, and delivers the update. Like Telegram it lists the
// photo in two sizes, a small preview first; the last is the one sent.
// It returns the new message's id.
func (s *Server) SendPhoto(from User, chatID int64, data []byte, caption string, replyTo int) int {
	s.mu.Lock()
	thumb := s.addFile("thumbnails", ".jpg", data[:min(len(data), 16)])
	full := s.addFile("photos", ".jpg", data)
	return s.sendMedia(from, chatID, caption, replyTo, "photo", []map[string]any{
		{"file_id": thumb.id, "file_unique_id": thumb.unique, "file_size": thumb.size, "width": 90, "height": 51},
		{"file_id": full.id, "file_unique_id": full.unique, "file_size": full.size, "width": 1280, "height": 720},
	})
}

// SendDocument makes from send a file (name and mime type as the client
// declared them) with a caption, optionally as a reply, and delivers the
// update. declaredSize, when not 0, replaces the size Telegram reports.
func (s *Server) SendDocument(from User, chatID int64, name, mimeType string, data []byte, declaredSize int, caption string, replyTo int) int {
	s.mu.Lock()
	f := s.addFile("documents", "", data)
	if declaredSize != 0 {
		f.size = declaredSize
	}
	return s.sendMedia(from, chatID, caption, replyTo, "document", map[string]any{
		"file_name": name, "mime_type": mimeType, "file_id": f.id, "file_unique_id": f.unique, "file_size": f.size,
	})
}

// sendMedia stores and delivers a message carrying media under key;
// callers hold s.mu, which it releases.
func (s *Server) sendMedia(from User, chatID int64, caption string, replyTo int, key string, media any) int {
	m := s.addMessage(chatID, from, "", replyTo)
	msg := s.messageJSON(m)
	delete(msg, "text")
	if caption != "" {
		msg["caption"] = caption
	}
	msg[key] = media
	s.mu.Unlock()
	s.deliver(map[string]any{"message": msg})
	return m.ID
}

// Downloads returns the file paths the bot downloaded, oldest first.
func (s *Server) Downloads() []string {
	var out []string
	for _, c := range s.Calls("download") {
		out = append(out, c.Params.Get("file_path"))
	}
	return out
}
