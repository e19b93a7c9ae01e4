package discord

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// A question's copy is created with a nonce derived from the question and
// the target, with enforce_nonce set: when a post is sent again after its
// answer was lost (the bridge died before recording it, or the connection
// broke), Discord returns the message the first request created instead
// of creating a second one, provided the same bot used the nonce within
// the last few minutes.

// maxNonce is Discord's limit on a nonce's length.
const maxNonce = 25

// copyNonce is the nonce of the copy of question id posted to chat: "q",
// the id, and a digest of the chat, at most 25 characters. The same copy
// always gets the same nonce; another question or another chat never
// does (short of a digest collision).
func copyNonce(id, chat string) string {
	sum := sha256.Sum256([]byte(chat))
	n := "q" + id + "." + hex.EncodeToString(sum[:])
	return n[:min(len(n), maxNonce)]
}

// messageWithNonce is a message to create with a nonce that Discord
// enforces. discordgo's MessageSend has no nonce field, so the request
// body embeds it and adds the two fields.
type messageWithNonce struct {
	*discordgo.MessageSend
	Nonce        string `json:"nonce"`
	EnforceNonce bool   `json:"enforce_nonce"`
}

// sendOnce creates m in channel to with nonce enforced, through the
// session's request path (its bucket rate limiter and options), and
// returns the message Discord created or had created for that nonce.
func (c *Channel) sendOnce(to, nonce string, m *discordgo.MessageSend, opts ...discordgo.RequestOption) (*discordgo.Message, error) {
	endpoint := discordgo.EndpointChannelMessages(to)
	body := messageWithNonce{MessageSend: m, Nonce: nonce, EnforceNonce: true}
	resp, err := c.session.RequestWithBucketID("POST", endpoint, body, endpoint, opts...)
	if err != nil {
		return nil, err
	}
	var msg discordgo.Message
	if err := discordgo.Unmarshal(resp, &msg); err != nil {
		return nil, fmt.Errorf("%w: %v", discordgo.ErrJSONUnmarshal, err)
	}
	return &msg, nil
}
