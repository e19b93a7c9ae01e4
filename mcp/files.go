package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// FileFetcher is implemented by Askers that can fetch the files people
// sent with their answers (*client.Client does). With one, every file
// comes back to the model after the text that names it by its marker
// ("[Image #1]", "[File #2: app.log]"): a picture as an image block, a
// text file as an embedded resource holding its text, any other file as
// an embedded resource holding its bytes (base64) and media type. A file
// over Config.EmbedFilesMax stays a marker and an entry of the answer's
// attachments list, at its url on the bridge.
type FileFetcher interface {
	Attachment(ctx context.Context, id string, n int) (*client.File, error)
}

var _ FileFetcher = (*client.Client)(nil)

// fetchTimeout bounds fetching the files of one result.
const fetchTimeout = 30 * time.Second

// DefaultEmbedFilesMax is the largest file, other than a picture, that a
// result embeds when Config.EmbedFilesMax is zero.
const DefaultEmbedFilesMax = 1 << 20

// MaxEmbedFilesMax is the most mcp.embed_files_max takes: the largest
// file the bridge keeps.
const MaxEmbedFilesMax = client.MaxAttachmentSize

// result is the tool result of a bridge result, with the files of its
// answers as content blocks when a can fetch them. A file that cannot be
// fetched is said so in a text block instead.
func (s *Server) result(ctx context.Context, a Asker, r *client.Result) *sdk.CallToolResult {
	res := resultFor(r)
	var files []client.Attachment
	seen := map[int]bool{}
	for _, ans := range r.Answers {
		for _, at := range ans.Attachments {
			if !seen[at.N] {
				seen[at.N] = true
				files = append(files, at)
			}
		}
	}
	f, ok := a.(FileFetcher)
	if len(files) == 0 || !ok {
		return res
	}
	sort.Slice(files, func(i, j int) bool { return files[i].N < files[j].N })
	limit := s.embedLimit()
	var embed []client.Attachment
	for _, at := range files {
		if at.IsImage() || at.Size <= limit {
			embed = append(embed, at)
		}
	}
	res.Content = append(res.Content, &sdk.TextContent{Text: filesText(files, embed, limit)})
	// The call's own context may be ending (a cancelled request still
	// gets its result); the fetch has a bound of its own.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	for _, at := range embed {
		file, err := f.Attachment(fctx, r.ID, at.N)
		if err != nil {
			s.log.Warn("fetching a file of an answer failed", "question_id", r.ID, "n", at.N, "err", err)
			res.Content = append(res.Content, &sdk.TextContent{Text: fmt.Sprintf("%s (%s) could not be fetched: %v", marker(at), at.Name, err)})
			continue
		}
		res.Content = append(res.Content, fileContent(at, file))
	}
	return res
}

// embedLimit is the largest file, other than a picture, a result embeds;
// -1 embeds none.
func (s *Server) embedLimit() int64 {
	switch n := s.cfg.EmbedFilesMax; {
	case n == 0:
		return DefaultEmbedFilesMax
	case n < 0:
		return -1
	default:
		return n
	}
}

// fileContent is the content block of one fetched file: an image, or an
// embedded resource at the file's url, with its text when it is text in
// UTF-8 and its bytes otherwise.
func fileContent(at client.Attachment, file *client.File) sdk.Content {
	if at.IsImage() {
		return &sdk.ImageContent{Data: file.Data, MIMEType: file.Type}
	}
	uri := at.URL
	if strings.HasPrefix(uri, "/") {
		uri = "askbridge:" + uri // the bridge's path: an agent GETs it with its key
	}
	rc := &sdk.ResourceContents{URI: uri, MIMEType: file.Type}
	if isText(file) {
		rc.Text = string(file.Data)
	} else {
		rc.Blob = file.Data
	}
	return &sdk.EmbeddedResource{Resource: rc}
}

// isText reports whether a file is text to embed as it is: a text/* or
// JSON media type, and valid UTF-8.
func isText(file *client.File) bool {
	mt := file.Type
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	mt = strings.TrimSpace(mt)
	textual := strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json")
	return textual && utf8.Valid(file.Data)
}

// marker names a file as the answer's text does.
func marker(at client.Attachment) string {
	if at.IsImage() {
		return fmt.Sprintf("[Image #%d]", at.N)
	}
	return fmt.Sprintf("[File #%d: %s]", at.N, at.Name)
}

// filesText tells the model where the files of an answer are.
func filesText(files, embedded []client.Attachment, limit int64) string {
	s := fmt.Sprintf("The answer carries %d file(s), named by their markers.", len(files))
	if len(embedded) > 0 {
		s += fmt.Sprintf(" %d follow in the order of their markers: pictures as images, other files as embedded resources (text as text, the rest as base64 with its media type).", len(embedded))
	}
	if left := len(files) - len(embedded); left > 0 {
		s += fmt.Sprintf(" %d larger than %s stay at their url on the bridge (GET with the agent key).", left, sizeText(limit))
	}
	return s
}

// filesDescription tells the model, in the tools' descriptions, how the
// files people send come back, with the size limit.
func filesDescription(limit int64) string {
	const head = "People may answer with files (at most 10 MiB each): each is named in custom_text by a marker ([Image #1], [File #2: name]) and listed in attachments; pictures follow the result as images"
	if limit < 0 {
		return head + ", other files stay at their url on the bridge (GET with the agent key)."
	}
	return head + ", other files up to " + sizeText(limit) + " as embedded resources (text files as text, others as base64 with their media type), larger ones stay at their url on the bridge (GET with the agent key)."
}

// sizeText writes a byte count for people: "1 MiB", "512 KiB", "0 bytes".
func sizeText(n int64) string {
	switch {
	case n < 0:
		return "0 bytes"
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
