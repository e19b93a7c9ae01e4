package mcp

import (
	"context"
	"fmt"
	"sort"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// FileFetcher is implemented by Askers that can fetch the files people
// sent with their answers (*client.Client does). With one, every picture
// comes back to the model as an image content block, after the text that
// names it by its marker ("[Image #1]"); other files stay as markers and
// entries of the answer's attachments list.
type FileFetcher interface {
	Attachment(ctx context.Context, id string, n int) (*client.File, error)
}

var _ FileFetcher = (*client.Client)(nil)

// fetchTimeout bounds fetching the pictures of one result.
const fetchTimeout = 30 * time.Second

// result is the tool result of a bridge result, with the pictures of its
// answers as image blocks when a can fetch them. A picture that cannot be
// fetched is said so in a text block instead.
func (s *Server) result(ctx context.Context, a Asker, r *client.Result) *sdk.CallToolResult {
	res := resultFor(r)
	var pics []client.Attachment
	files := 0
	seen := map[int]bool{}
	for _, ans := range r.Answers {
		for _, at := range ans.Attachments {
			if seen[at.N] {
				continue
			}
			seen[at.N] = true
			files++
			if at.IsImage() {
				pics = append(pics, at)
			}
		}
	}
	f, ok := a.(FileFetcher)
	if files == 0 || !ok {
		return res
	}
	res.Content = append(res.Content, &sdk.TextContent{Text: filesText(files, len(pics))})
	sort.Slice(pics, func(i, j int) bool { return pics[i].N < pics[j].N })
	// The call's own context may be ending (a cancelled request still
	// gets its result); the fetch has a bound of its own.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	for _, p := range pics {
		file, err := f.Attachment(fctx, r.ID, p.N)
		if err != nil {
			s.log.Warn("fetching a picture of an answer failed", "question_id", r.ID, "n", p.N, "err", err)
			res.Content = append(res.Content, &sdk.TextContent{Text: fmt.Sprintf("[Image #%d] (%s) could not be fetched: %v", p.N, p.Name, err)})
			continue
		}
		res.Content = append(res.Content, &sdk.ImageContent{Data: file.Data, MIMEType: file.Type})
	}
	return res
}

// filesText tells the model where the files of an answer are.
func filesText(files, pics int) string {
	switch {
	case pics == files:
		return fmt.Sprintf("The answer carries %d picture(s); they follow as images, in the order of their markers.", pics)
	case pics == 0:
		return fmt.Sprintf("The answer carries %d file(s), named by their markers; each is at its url on the bridge (GET with the agent key).", files)
	}
	return fmt.Sprintf("The answer carries %d file(s), named by their markers: the %d picture(s) follow as images; the others are at their url on the bridge (GET with the agent key).", files, pics)
}
