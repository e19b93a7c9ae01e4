package web

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
)

// maxUploadBody bounds the body of POST /inbox/answer: the files of one
// question in base64 (4 bytes per 3), and room for names and the text.
const maxUploadBody = (broker.MaxQuestionFiles+2)/3*4 + broker.MaxFilesPerAnswer*(1<<10) + maxBody

// uploadTimeout bounds reading an answer with files and writing its reply:
// longer than the server's read timeout, which suits small JSON bodies, so
// that 25 MiB get through a slow uplink, yet a sender that stalls is cut
// off.
const uploadTimeout = 3 * time.Minute

// uploadFile is one file of an answer, as the page sends it.
type uploadFile struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Data is the file's bytes, base64 in the JSON.
	Data []byte `json:"data"`
}

// serveAnswer takes an answer with files from the form of a prompt:
// the form's pick step with the options ticked and the text typed, as
// POST /inbox/command takes them, the files going with the command the
// step sends, or alone on the step's prompt when nothing was chosen.
// Without a step, text is a command ("/answer k7m2qx.2 other …"), or
// empty when only files are sent; question and prompt (1-based) name
// the prompt then. The broker checks the files (size, type sniffed from
// the bytes) as it does for every channel.
//
// The sign-in is checked before the long read is allowed, and a refusal
// closes the connection instead of reading the body first: a sender that
// is not signed in gets its 401 at once and holds nothing for minutes.
func (c *Channel) serveAnswer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	who, ok := c.signedIn(w, r)
	if !ok {
		return
	}
	w.Header().Del("Connection")
	p := c.words(who, r)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(uploadTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(uploadTimeout + time.Minute))
	var body struct {
		Text     string       `json:"text"`
		Step     string       `json:"step"`
		Options  []int        `json:"options"`
		Question string       `json:"question"`
		Prompt   int          `json:"prompt"`
		Files    []uploadFile `json:"files"`
	}
	if err := decode(r, &body); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, errBodyTooLarge) {
			status = http.StatusRequestEntityTooLarge
			err = errTooMuch
		}
		writeJSON(w, status, refused(p, err))
		return
	}
	text := strings.TrimSpace(body.Text)
	if body.Step != "" {
		s, cmd, ok, err := tap{Step: body.Step, Options: body.Options, Text: text}.command()
		if err != nil {
			writeJSON(w, http.StatusBadRequest, refused(p, err))
			return
		}
		text, body.Question, body.Prompt = cmd, s.Ref.ID, s.Ref.Index+1
		if !ok {
			text = ""
		}
	}
	switch {
	case len(body.Files) == 0:
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.upload_none")})
		return
	case len(text) > maxCommandLen || !utf8.ValidString(text):
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.upload_invalid")})
		return
	case text == "" && !broker.ValidID(body.Question):
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.upload_question")})
		return
	case body.Prompt < 0 || body.Prompt > broker.MaxPrompts:
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.upload_prompt", broker.MaxPrompts)})
		return
	}
	files := make([]broker.Attachment, len(body.Files))
	for i, f := range body.Files {
		files[i] = broker.Attachment{Name: f.Name, Type: f.Type, Size: int64(len(f.Data)), Data: f.Data}
	}
	in := broker.Inbound{Channel: Name, User: who.User, Name: who.Name, Text: text, Private: true, Attachments: files}
	if text == "" {
		in.QuestionID, in.Prompt = body.Question, body.Prompt
	}
	rep := c.in.HandleInbound(r.Context(), in)
	if rep.Question != nil {
		c.publish(rep.Question)
	}
	msg := rep.Text
	if rep.Ignored || msg == "" {
		msg = p.T("inbox.reply.upload_ignored")
	}
	writeJSON(w, http.StatusOK, reply{OK: rep.OK, Reply: msg})
}

// errTooMuch is the refusal of a body over maxUploadBody.
var errTooMuch = errors.New("these files come to more than " + broker.SizeText(broker.MaxQuestionFiles) + "; send " + broker.FileRule)
