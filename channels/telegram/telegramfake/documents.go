package telegramfake

import (
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Documents the bot sends, and replies.
//
// sendDocument takes the file as a multipart/form-data upload in the
// field "document" (or the file_id of a file Telegram has), with chat_id,
// an optional caption of at most 1024 characters and the reply fields.
// A reply names its message with reply_parameters, a JSON object
// {"message_id":…, "allow_sending_without_reply":…} (Bot API 7.0), or
// with the older reply_to_message_id and allow_sending_without_reply,
// which Telegram still accepts; the fake takes both, for sendMessage too.

const (
	// maxCaption is Telegram's limit on a caption after entity parsing.
	maxCaption = 1024
	// maxUpload is the largest file a bot may upload (50 MB).
	maxUpload = 50 << 20
)

// Document is a file the bot sent, as the chat shows it.
type Document struct {
	FileName, MimeType string
	Data               []byte
	// FileID is the file_id Telegram gave it (getFile serves it).
	FileID string
}

// FailNextReply makes the next call of method that replies to a message
// answer with f instead; calls that reply to nothing are served.
func (s *Server) FailNextReply(method string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replyFailures == nil {
		s.replyFailures = map[string][]Failure{}
	}
	s.replyFailures[method] = append(s.replyFailures[method], f)
}

// replyFailure takes the failure waiting for a reply of method, when p
// is one; callers hold s.mu.
func (s *Server) replyFailure(method string, p url.Values) (Failure, bool) {
	fs := s.replyFailures[method]
	if len(fs) == 0 || p.Get("reply_parameters") == "" && p.Get("reply_to_message_id") == "" {
		return Failure{}, false
	}
	s.replyFailures[method] = fs[1:]
	return fs[0], true
}

// replyParameters is the ReplyParameters object of the Bot API.
type replyParameters struct {
	MessageID                int   `json:"message_id"`
	ChatID                   any   `json:"chat_id"`
	AllowSendingWithoutReply *bool `json:"allow_sending_without_reply"`
}

// replyTarget returns the message in chat that p replies to, 0 for none,
// or Telegram's error; callers hold s.mu.
func (s *Server) replyTarget(chat int64, p url.Values) (int, *Failure) {
	id, _ := strconv.Atoi(p.Get("reply_to_message_id"))
	without := p.Get("allow_sending_without_reply") == "true"
	if raw := p.Get("reply_parameters"); raw != "" {
		var rp replyParameters
		if err := json.Unmarshal([]byte(raw), &rp); err != nil || rp.MessageID == 0 {
			return 0, badRequest("can't parse reply parameters JSON object")
		}
		if rp.ChatID != nil {
			return 0, badRequest("replies to another chat are not supported by this fake")
		}
		id = rp.MessageID
		if rp.AllowSendingWithoutReply != nil {
			without = *rp.AllowSendingWithoutReply
		}
	}
	if id == 0 {
		return 0, nil
	}
	if _, ok := s.msgs[msgKey{chat, id}]; !ok {
		if !without {
			return 0, badRequest("message to be replied not found")
		}
		return 0, nil
	}
	return id, nil
}

// uploadHandler returns the handler of a method that takes an upload.
func (s *Server) uploadHandler(method string, r *http.Request) (handler, bool) {
	if method != "sendDocument" {
		return nil, false
	}
	return func(p url.Values) (any, *Failure) { return s.sendDocument(p, r.MultipartForm) }, true
}

// sendDocument answers like the Bot API: the sent Message with its
// document, or 400 for a missing or empty file, a caption too long or a
// reply to a message that is not there; callers hold s.mu.
func (s *Server) sendDocument(p url.Values, form *multipart.Form) (any, *Failure) {
	c, f := s.chatFor(p)
	if f != nil {
		return nil, f
	}
	doc, f := s.uploadedDocument(p, form)
	if f != nil {
		return nil, f
	}
	caption, ents := "", []Entity(nil)
	if raw := p.Get("caption"); raw != "" {
		caption, ents, f = render(raw, p.Get("parse_mode"))
		if f != nil {
			return nil, f
		}
		if utf16Len(caption) > maxCaption {
			return nil, badRequest("message caption is too long")
		}
	}
	kb, _, f := parseMarkup(p.Get("reply_markup"))
	if f != nil {
		return nil, f
	}
	replyTo, f := s.replyTarget(c.ID, p)
	if f != nil {
		return nil, f
	}
	m := s.addMessage(c.ID, s.bot, "", replyTo)
	m.Text, m.HTML, m.Caption, m.Entities, m.Document = "", "", caption, ents, doc
	if len(kb) > 0 {
		m.Keyboard = kb
	}
	return s.messageJSON(m), nil
}

// uploadedDocument reads the document of a sendDocument call: the file
// uploaded in the "document" field, or a file_id the fake knows; callers
// hold s.mu.
func (s *Server) uploadedDocument(p url.Values, form *multipart.Form) (*Document, *Failure) {
	if form != nil && len(form.File["document"]) > 0 {
		fh := form.File["document"][0]
		if fh.Size > maxUpload {
			return nil, &Failure{Code: 413, Description: "Request Entity Too Large"}
		}
		file, err := fh.Open()
		if err != nil {
			return nil, badRequest("can't read the uploaded file")
		}
		defer file.Close()
		data, err := io.ReadAll(file)
		if err != nil {
			return nil, badRequest("can't read the uploaded file")
		}
		if len(data) == 0 {
			return nil, badRequest("file must be non-empty")
		}
		name := fh.Filename
		if name == "" {
			name = "document"
		}
		typ, _, _ := mime.ParseMediaType(mime.TypeByExtension(path.Ext(name)))
		if typ == "" {
			typ = "application/octet-stream"
		}
		sf := s.addFile("documents", path.Ext(name), data)
		return &Document{FileName: name, MimeType: typ, Data: data, FileID: sf.id}, nil
	}
	if id := p.Get("document"); id != "" {
		if sf, ok := s.files[id]; ok {
			return &Document{FileName: path.Base(sf.path), MimeType: "application/octet-stream", Data: sf.data, FileID: sf.id}, nil
		}
		if strings.HasPrefix(id, "http://") || strings.HasPrefix(id, "https://") {
			return nil, badRequest("failed to get HTTP URL content")
		}
		return nil, badRequest("wrong file identifier/HTTP URL specified")
	}
	return nil, badRequest("there is no document in the request")
}

// documentJSON adds the document and caption of m to its JSON out.
func documentJSON(m *Message, out map[string]any) {
	delete(out, "text")
	delete(out, "entities")
	d := m.Document
	out["document"] = map[string]any{
		"file_name": d.FileName, "mime_type": d.MimeType, "file_size": len(d.Data),
		"file_id": d.FileID, "file_unique_id": "AgAD" + strings.TrimPrefix(d.FileID, "BQACAgIAAxkBAAI"),
	}
	if m.Caption != "" {
		out["caption"] = m.Caption
		if len(m.Entities) > 0 {
			out["caption_entities"] = m.Entities
		}
	}
}
