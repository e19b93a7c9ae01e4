package web

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
)

// The conversation of a live agent session on its question's card
// (broker/conversation.go). Once a conversation question has ended, its
// card in the history shows what was said on it since, people's
// messages and the agent's replies from the store (so every instance and
// every reload shows the same), and a box whose text POST /inbox/say
// hands to the broker as a message on that question: the broker sends
// it to the session when the person may answer the question and the
// session listens, and says so.

// ConversationReader reads what was said on a question once it ended.
// The broker satisfies it.
type ConversationReader interface {
	Conversation(ctx context.Context, q *broker.Question) ([]broker.SessionMessage, error)
}

var _ broker.Threader = (*Channel)(nil)

// lineView is one message of a card's conversation.
type lineView struct {
	// From is "person" or "agent"; Who names the person, and is empty
	// for the agent, whom the page names in its own words.
	From string    `json:"from"`
	Who  string    `json:"who"`
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// conversationRead bounds reading one card's conversation.
const conversationRead = 2 * time.Second

// PostInThread shows an agent's reply on the card of q: the broker keeps
// the reply in the conversation, which the card reads, and edits the
// card (Update) once it has; nothing is left to post here.
func (c *Channel) PostInThread(context.Context, *broker.Question, broker.MessageRef, string) error {
	return nil
}

// addConversation puts the conversation of an ended conversation
// question on its view, with the box to write to the session. A view
// with more messages ranks above one with fewer.
func (c *Channel) addConversation(ctx context.Context, q *broker.Question, v *view) {
	if c.talk == nil || !q.Conversation || !q.Status.Terminal() {
		return
	}
	v.Say = true
	ctx, cancel := context.WithTimeout(ctx, conversationRead)
	defer cancel()
	msgs, err := c.talk.Conversation(ctx, q)
	if err != nil {
		c.log.Warn("read a card's conversation", "question_id", q.ID, "err", err)
		return
	}
	for _, m := range msgs {
		// The page names the agent in its reader's language.
		l := lineView{From: m.From, Text: m.Text, At: m.At}
		if m.From == broker.FromPerson {
			l.Who = broker.WhoText(m.By)
		}
		v.Conversation = append(v.Conversation, l)
	}
	v.Rank += len(v.Conversation)
}

// serveSay takes a message from the box on an ended conversation
// question's card: {"question","text"} → {"ok","reply"}.
func (c *Channel) serveSay(w http.ResponseWriter, r *http.Request) {
	who, ok := c.signedIn(w, r)
	if !ok {
		return
	}
	p := c.words(who, r)
	var body struct {
		Question string `json:"question"`
		Text     string `json:"text"`
	}
	if err := decode(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, refused(p, err))
		return
	}
	text := strings.TrimSpace(body.Text)
	switch {
	case !broker.ValidID(body.Question):
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.say_question")})
		return
	case text == "":
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.say_empty")})
		return
	case len(text) > maxCommandLen || !utf8.ValidString(text):
		writeJSON(w, http.StatusBadRequest, reply{Reply: p.T("inbox.reply.say_invalid")})
		return
	}
	rep := c.in.HandleInbound(r.Context(), broker.Inbound{
		Channel: Name, User: who.User, Name: who.Name, Text: text, QuestionID: body.Question, Private: true,
	})
	msg := rep.Text
	if rep.Ignored || msg == "" {
		msg = p.T("inbox.reply.say_nothing")
	}
	writeJSON(w, http.StatusOK, reply{OK: rep.OK, Reply: msg})
}
