package channeltest

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// retryAfter is the wait the platform asks for in the 429 case: a whole
// second, the least Telegram and Slack can write.
const retryAfter = time.Second

// rateLimitWaitedOut: the platform refuses a post with 429 and a
// retry_after. That question is not posted again before the wait is
// over, nor is the next one to the same chat, asked once the bridge
// knows of the refusal; each is posted once, and both stay pending.
func rateLimitWaitedOut(t *testing.T, s *session) {
	s.p.RateLimitPost(retryAfter)
	before := len(s.p.PostAttempts())
	first := s.Ask(dbQuestion("first"))
	// The outbox records the refusal and holds the chat; a channel that
	// waits a 429 out itself (Discord, within a call) sends again.
	Eventually(t, "the 429 known to the bridge", func() bool {
		if len(s.p.PostAttempts())-before >= 2 {
			return true
		}
		tasks, err := s.Store.PlatformWork(s.Ctx, first.ID)
		for _, x := range tasks {
			if err == nil && x.Kind == broker.TaskPost && x.ErrorClass == broker.FailRateLimited {
				return true
			}
		}
		return false
	})
	qs := []*broker.Question{first, s.Ask(dbQuestion("first"))}
	for _, q := range qs {
		s.posted(t, s.chats[0], q)
	}
	attempts := s.p.PostAttempts()[before:]
	if len(attempts) != 3 {
		t.Fatalf("%d posting calls, want 3: the refused one, then one per question", len(attempts))
	}
	for i, at := range attempts[1:] {
		if gap := at.Sub(attempts[0]); gap < retryAfter {
			t.Errorf("posting call %d came %s after the 429, before its retry_after of %s", i+2, gap, retryAfter)
		}
	}
	for _, q := range qs {
		n := 0
		for _, m := range s.p.Messages(s.chats[0]) {
			if strings.Contains(m.Text, q.ID) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("question %s posted %d times, want once", q.ID, n)
		}
		if got := s.Question(q.ID); got.Status != broker.StatusPending {
			t.Errorf("after a 429 the question %s is %s: %s", q.ID, got.Status, got.Reason)
		}
	}
}
