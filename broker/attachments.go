package broker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/internal/i18n"
)

// People answer with a screenshot or a log file. A channel hands the files
// of a message to the broker as Attachments of its Inbound; the broker
// checks them (size, and a type sniffed from the bytes), stores them beside
// the question through the store's Attachments role, and records an answer
// whose custom text carries a marker per file ("[Image #1]", "[File #2:
// build.log]") and whose Attachments list says where the agent fetches
// each one. Files are stored before the answer is recorded, so an answer
// never names a missing file; the files of an answer that loses (the
// question was answered meanwhile) are deleted again.

// The limits of files sent with answers.
const (
	// MaxFileSize is the largest file accepted.
	MaxFileSize = 10 << 20
	// MaxQuestionFiles is the most bytes of files one question keeps.
	MaxQuestionFiles = 25 << 20
	// MaxFilesPerAnswer is the most files one answer carries.
	MaxFilesPerAnswer = 10
	// fetchTimeout bounds downloading the files of one answer from the
	// platform.
	fetchTimeout = 2 * time.Minute
)

// allowedFileTypes are the media types a file may have, as sniffed from
// its bytes: images, plain text (logs included) and PDF.
var allowedFileTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp", "text/plain", "application/pdf"}

// sniffFileType returns the media type net/http's DetectContentType
// finds in the first 512 bytes of a file, without parameters, and whether
// files of that type are accepted. Markup (HTML, XML) is never plain text
// to it, so no page reaches a browser as a "log".
func sniffFileType(data []byte) (string, bool) {
	t, _, _ := strings.Cut(http.DetectContentType(data), ";")
	return t, slices.Contains(allowedFileTypes, t)
}

// FileRule is the sentence that tells people which files are accepted.
const FileRule = "images (PNG, JPEG, GIF, WebP), text and log files, and PDFs, up to 10 MiB each and 25 MiB per question"

// Attachment is a file a person sent with a message, as the channel
// received it. The broker fetches it only after it has checked that the
// person may answer the question.
type Attachment struct {
	// Name is the file's name as sent; empty for a photo without one.
	Name string
	// Type is the media type the platform declared. It is a hint for
	// the name only: the stored type is sniffed from the bytes.
	Type string
	// Size is the size the platform declared, 0 when unknown; a file
	// declared larger than MaxFileSize is refused without a download.
	Size int64
	// Data holds the bytes when the channel has them already.
	Data []byte
	// Fetch downloads the bytes otherwise. It returns at most max+1
	// bytes, so that a file over max is told from one of exactly max.
	Fetch func(ctx context.Context, max int64) ([]byte, error)
}

// File is one file stored with a question.
type File struct {
	// N numbers the files of a question from 1; the store assigns it.
	N    int
	Name string
	// Type is the media type sniffed from Data, without parameters.
	Type string
	Size int64
	// Data is empty in ListAttachments.
	Data []byte
}

// FileRef is a file in an answer, as agents see it: url is the API path
// that returns its bytes to the asking agent.
type FileRef struct {
	N    int    `json:"n"`
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
	URL  string `json:"url"`
}

// IsImage reports whether the file is a picture.
func (f FileRef) IsImage() bool { return strings.HasPrefix(f.Type, "image/") }

// Marker is the file's marker in an answer's custom text: "[Image #1]" or
// "[File #2: build.log]".
func (f FileRef) Marker() string {
	if f.IsImage() {
		return "[Image #" + strconv.Itoa(f.N) + "]"
	}
	return "[File #" + strconv.Itoa(f.N) + ": " + f.Name + "]"
}

// FileURL is the API path of file n of question id.
func FileURL(id string, n int) string {
	return "/v1/questions/" + id + "/attachments/" + strconv.Itoa(n)
}

// fileRefusal is a reply refusing an answer because of its files, in
// w's language: message id with args, then that nothing was recorded.
func fileRefusal(w *i18n.Printer, q *Question, id string, args ...any) *Reply {
	return &Reply{Text: w.T("answer.file_refused", say(id, args...).in(w)), Question: q, Err: ErrInvalid}
}

// checkFiles refuses files an answer to prompt p cannot carry before
// anything is downloaded: too many, declared too large, or a prompt that
// takes no free text.
func checkFiles(w *i18n.Printer, q *Question, p Prompt, a *Answer, files []Attachment) *Reply {
	switch {
	case len(files) == 0:
		return nil
	case !p.AllowsOther():
		return fileRefusal(w, q, "answer.files_options_only")
	case p.Field != nil && (p.Field.Type != FieldString || p.Field.Format != ""):
		return fileRefusal(w, q, "answer.files_field", p.Field.words(w))
	case a != nil && a.Skipped:
		return fileRefusal(w, q, "answer.files_skipped")
	case len(files) > MaxFilesPerAnswer:
		return fileRefusal(w, q, "answer.files_too_many", len(files), MaxFilesPerAnswer)
	}
	for _, f := range files {
		if f.Size > MaxFileSize {
			return tooLarge(w, q, f, f.Size)
		}
	}
	return nil
}

// attachFiles downloads, checks and stores the files of in for the answer
// a to prompt i of q, and adds their markers and references to a. It
// returns the numbers of the stored files, so that they can be deleted
// should the answer lose, or the reply that refuses the answer.
func (b *Broker) attachFiles(ctx context.Context, in Inbound, q *Question, i int, a *Answer) ([]int, *Reply) {
	if len(in.Attachments) == 0 {
		return nil, nil
	}
	w := b.words(in, q)
	if r := checkFiles(w, q, q.Prompts[i], a, in.Attachments); r != nil {
		return nil, r
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	var ready []File
	var total int64
	for _, at := range in.Attachments {
		data := at.Data
		if data == nil && at.Fetch != nil {
			var err error
			if data, err = at.Fetch(fctx, MaxFileSize); err != nil {
				b.log.Warn("file download failed", "question_id", q.ID, "channel", in.Channel, "chat", in.Chat, "err", err)
				return nil, &Reply{Text: w.T("answer.file_download_failed", describeFile(w, at), in.Channel), Question: q, Err: ErrUnavailable}
			}
		}
		if len(data) > MaxFileSize {
			return nil, tooLarge(w, q, at, int64(len(data)))
		}
		if len(data) == 0 {
			return nil, fileRefusal(w, q, "answer.file_empty", describeFile(w, at))
		}
		typ, allowed := sniffFileType(data)
		if !allowed {
			return nil, fileRefusal(w, q, "answer.file_type", describeFile(w, at), w.T("answer.file_rule"))
		}
		total += int64(len(data))
		if total > MaxQuestionFiles {
			return nil, fileRefusal(w, q, "answer.files_total", SizeText(MaxQuestionFiles))
		}
		ready = append(ready, File{Name: fileName(at.Name, typ), Type: typ, Size: int64(len(data)), Data: data})
	}
	var stored []int
	var refs []FileRef
	for _, f := range ready {
		n, err := b.store.PutAttachment(ctx, q.ID, f, MaxQuestionFiles)
		if err != nil {
			b.dropFiles(q.ID, stored)
			return nil, b.putFailed(w, q, err)
		}
		stored = append(stored, n)
		refs = append(refs, FileRef{N: n, Name: f.Name, Type: f.Type, Size: f.Size, URL: FileURL(q.ID, n)})
	}
	markers := make([]string, len(refs))
	for k, r := range refs {
		markers[k] = r.Marker()
	}
	a.CustomText = strings.TrimSpace(a.CustomText + " " + strings.Join(markers, " "))
	a.Attachments = refs
	b.log.Info("files stored with an answer", "question_id", q.ID, "channel", in.Channel, "chat", in.Chat, "files", len(refs), "bytes", total)
	return stored, nil
}

// putFailed is the reply, in w's language, to a file the store refused.
func (b *Broker) putFailed(w *i18n.Printer, q *Question, err error) *Reply {
	var closed *ClosedError
	switch {
	case errors.As(err, &closed):
		return &Reply{Text: closedText(w, closed.Question, b.cfg.Location), Question: closed.Question, Err: ErrClosed}
	case errors.Is(err, ErrLimit):
		return fileRefusal(w, q, "answer.files_kept", q.ID, SizeText(MaxQuestionFiles))
	case errors.Is(err, ErrNotFound):
		return &Reply{Text: w.T("refuse.no_question", q.ID), Err: ErrNotFound}
	}
	b.log.Error("store file", "question_id", q.ID, "err", err)
	return &Reply{Text: w.T("answer.files_store_failed"), Question: q, Err: ErrUnavailable}
}

// dropFiles deletes files stored for an answer that was not recorded. It
// runs on its own context: the answer's may be over, and a file left
// behind would only wait for its question's purge.
func (b *Broker) dropFiles(id string, ns []int) {
	if len(ns) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
	defer cancel()
	if err := b.store.DeleteAttachments(ctx, id, ns); err != nil {
		b.log.Warn("deleting the files of an unrecorded answer failed; they go with the question", "question_id", id, "files", ns, "err", err)
	}
}

// Attachment returns file n of the agent's question id. Only files that
// the question's answers name are returned: the files of an answer that
// lost, should any be left, are as unknown as a number never used.
func (b *Broker) Attachment(ctx context.Context, agent, id string, n int) (*File, error) {
	q, err := b.Get(ctx, agent, id)
	if err != nil {
		return nil, err
	}
	if !answerNames(q, n) {
		return nil, fmt.Errorf("%w: question %s has no file %d", ErrNotFound, id, n)
	}
	f, err := b.store.GetAttachment(ctx, id, n)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: question %s has no file %d", ErrNotFound, id, n)
	}
	return f, err
}

// answerNames reports whether an answer or a recorded part of q names
// file n.
func answerNames(q *Question, n int) bool {
	names := func(a Answer) bool {
		for _, r := range a.Attachments {
			if r.N == n {
				return true
			}
		}
		return false
	}
	for _, a := range q.Answers {
		if names(a) {
			return true
		}
	}
	for _, a := range q.Progress {
		if a != nil && names(*a) {
			return true
		}
	}
	return false
}

// describeFile names a file in a reply to a person.
// describeFile names a in a sentence, in w's language: “build.log”, or
// "That file" without a name.
func describeFile(w *i18n.Printer, a Attachment) string {
	if name := cleanFileName(a.Name); name != "" {
		return w.T("answer.file_named", name)
	}
	return w.T("answer.file_unnamed")
}

// SizeText renders a byte count for people: "10 MiB", "2.5 MiB", "640 KiB".
func SizeText(n int64) string {
	switch {
	case n >= 1<<20:
		s := strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + " MiB"
	case n >= 1<<10:
		return strconv.FormatInt((n+1<<9)>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// tooLarge refuses file a of n bytes, over MaxFileSize: "“a.png” is 12
// MiB", or "is over 10 MiB" when its size would read as the limit itself.
func tooLarge(w *i18n.Printer, q *Question, a Attachment, n int64) *Reply {
	if SizeText(n) == SizeText(MaxFileSize) {
		return fileRefusal(w, q, "answer.file_over", describeFile(w, a), SizeText(MaxFileSize), SizeText(MaxFileSize))
	}
	return fileRefusal(w, q, "answer.file_size", describeFile(w, a), SizeText(n), SizeText(MaxFileSize))
}

// maxFileName bounds a stored file name, in characters.
const maxFileName = 100

// fileName returns the name a file is stored and shown under: the sent
// name without any directory, control characters, brackets or quotes, at
// most 100 characters; or, when nothing is left, "image.png",
// "file.txt"… after its sniffed type.
func fileName(sent, typ string) string {
	name := cleanFileName(sent)
	if name == "" {
		base := "file"
		if strings.HasPrefix(typ, "image/") {
			base = "image"
		}
		return base + extensions[typ]
	}
	return name
}

var extensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"text/plain": ".txt", "application/pdf": ".pdf",
}

func cleanFileName(s string) string {
	s = strings.ToValidUTF8(s, "")
	if k := strings.LastIndexAny(s, `/\`); k >= 0 {
		s = s[k+1:]
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '[' || r == ']' || r == '"' || r == '\'' || r == '`' || r == '<' || r == '>':
			return '_'
		case r == '\n' || r == '\t' || r == '\u2028' || r == '\u2029':
			return ' '
		case isControl(r), isBidiControl(r):
			return -1
		}
		return r
	}, s)
	s = strings.Trim(strings.TrimSpace(s), ".")
	if utf8.RuneCountInString(s) > maxFileName {
		ext := ""
		if k := strings.LastIndexByte(s, '.'); k > 0 && len(s)-k <= 10 {
			ext = s[k:]
		}
		r := []rune(strings.TrimSuffix(s, ext))
		s = string(r[:maxFileName-utf8.RuneCountInString(ext)]) + ext
	}
	return s
}
