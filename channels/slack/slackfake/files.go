package slackfake

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// File is a file a person shared, as Slack's file object describes it.
type File struct {
	ID, Name, Mimetype, Filetype string
	Size                         int
	// URLPrivate and URLPrivateDownload are where the fake serves it.
	URLPrivate, URLPrivateDownload string
}

// ShareFile stores data as a file a person uploaded; size, when not 0,
// replaces the size Slack reports.
func (s *Server) ShareFile(name, mimetype string, data []byte, size int) File {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string][]byte{}
	}
	id := "F0FAKE" + strconv.Itoa(len(s.files)+1)
	base := "/files-pri/" + TeamID + "-" + id + "/"
	s.files[base+"download/"+name] = data
	s.files[base+name] = data
	if size == 0 {
		size = len(data)
	}
	ft := "text"
	if strings.HasPrefix(mimetype, "image/") {
		ft = strings.TrimPrefix(mimetype, "image/")
	}
	return File{ID: id, Name: name, Mimetype: mimetype, Filetype: ft, Size: size,
		URLPrivate: s.srv.URL + base + name, URLPrivateDownload: s.srv.URL + base + "download/" + name}
}

// json is the file object of a file_share message event.
func (f File) json(user string) map[string]any {
	now := time.Now().Unix()
	return map[string]any{
		"id": f.ID, "created": now, "timestamp": now, "name": f.Name, "title": f.Name,
		"mimetype": f.Mimetype, "filetype": f.Filetype, "pretty_type": f.Filetype, "user": user, "user_team": TeamID,
		"editable": false, "size": f.Size, "mode": "hosted", "is_external": false, "external_type": "",
		"is_public": true, "public_url_shared": false, "display_as_bot": false, "username": "",
		"url_private": f.URLPrivate, "url_private_download": f.URLPrivateDownload,
		"permalink": "https://fake.slack.com/files/" + user + "/" + f.ID + "/" + f.Name, "file_access": "visible",
	}
}

// FileShareEvent is the Events API payload of a message that shares
// files (subtype file_share), with o.Text as the message typed with them.
func FileShareEvent(o MessageOpts, files ...File) map[string]any {
	o.SubType = "file_share"
	p := MessageEvent(o)
	ev := p["event"].(map[string]any)
	var list []any
	for _, f := range files {
		list = append(list, f.json(o.User.ID))
	}
	ev["files"], ev["upload"], ev["display_as_bot"] = list, false, false
	return p
}

// Downloads returns the paths of the files the app downloaded.
func (s *Server) Downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.downloads...)
}

// serveFile serves a shared file to the bot token. Like Slack, a request
// without it gets the sign-in page (HTML, 200), not the file.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[r.URL.Path]
	authorized := r.Header.Get("Authorization") == "Bearer "+BotToken
	if ok && authorized {
		s.downloads = append(s.downloads, r.URL.Path)
		s.notify()
	}
	s.mu.Unlock()
	switch {
	case !authorized:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to your workspace</body></html>"))
	case !ok:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(data)
	}
}
