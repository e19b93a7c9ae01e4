package discordfake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

// Messages created with files.
//
// A bot creates a message with files with a multipart/form-data body: the
// message's JSON in the part payload_json, and file n in the part files[n]
// with its filename and content type. The fake takes that form (the JSON
// body alone stays the way of a message without files), keeps the files
// as the message's attachments and serves them on its CDN path. A message
// carries at most 10 files of at most 10 MiB each; past that Discord
// answers Invalid Form Body, or 413 with code 40005.

const (
	maxFiles    = 10
	maxFileSize = 10 << 20
)

// uploadState is the fake's part for uploads.
type uploadState struct {
	// fail is the HTTP status every creation with files is answered
	// with, or 0.
	fail int
}

// FailUploads makes every message creation that carries files answer
// with status and Discord's body for it: 403 is Missing Permissions
// (50013, the bot may not attach files in the channel), another status its
// generic body ("500: Internal Server Error"). 0 stops it.
func (s *Server) FailUploads(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uploads.fail = status
}

// uploadBody returns the JSON of a message creation and its files: body
// itself when it is JSON, the payload_json and files[n] parts when it is
// multipart/form-data. When the upload is refused it answers w and
// reports false.
func (s *Server) uploadBody(w http.ResponseWriter, r *http.Request, body []byte) ([]byte, []File, bool) {
	typ, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if typ != "multipart/form-data" {
		return body, nil, true
	}
	payload, files, err := readUpload(body, params["boundary"])
	if err != nil {
		writeError(w, http.StatusBadRequest, "400: Bad Request", 0)
		return nil, nil, false
	}
	if len(files) > maxFiles {
		invalidForm(w, fmt.Errorf("files: must be %d or fewer in length", maxFiles))
		return nil, nil, false
	}
	for _, f := range files {
		if len(f.Data) > maxFileSize {
			writeError(w, http.StatusRequestEntityTooLarge, "Request entity too large", 40005)
			return nil, nil, false
		}
	}
	s.mu.Lock()
	fail := s.uploads.fail
	s.mu.Unlock()
	switch {
	case len(files) == 0 || fail == 0:
	case fail == http.StatusForbidden:
		writeError(w, fail, "Missing Permissions", 50013)
		return nil, nil, false
	default:
		writeError(w, fail, fmt.Sprintf("%d: %s", fail, http.StatusText(fail)), 0)
		return nil, nil, false
	}
	if payload == nil {
		payload = []byte("{}")
	}
	return payload, files, true
}

// readUpload reads the parts of a multipart/form-data body.
func readUpload(body []byte, boundary string) (payload []byte, files []File, err error) {
	if boundary == "" {
		return nil, nil, errors.New("no boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return payload, files, nil
		}
		if err != nil {
			return nil, nil, err
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, nil, err
		}
		name := part.FormName()
		switch {
		case name == "payload_json":
			payload = data
		case strings.HasPrefix(name, "files[") && strings.HasSuffix(name, "]"):
			files = append(files, File{Name: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data})
		}
	}
}
