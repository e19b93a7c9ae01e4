package channeltest

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
)

// Message is a message the bot posted, as a person sees it.
type Message struct {
	// ID is the platform's message id, as broker.MessageRef writes it.
	ID string
	// Text is everything the message shows as text.
	Text string
	// Buttons are the message's buttons as they stand, in order.
	Buttons []Button
	// Widgets are the message's other interactive elements as they
	// stand, in order: select menus, checkbox groups, overflow menus.
	Widgets []Widget
	// Edits counts the bot's edits of the message.
	Edits int
}

// Button is a button of a message. It keeps what pressing it sends, so
// that a test may press a button the message no longer shows (a stale
// tap on an old copy).
type Button struct {
	// Label is what the button reads.
	Label string
	// Value is what pressing it sends (callback data, a value, a custom
	// id); the platform's harness interprets it.
	Value string
	// Data is the step data the button carries, as the platform holds
	// it: Telegram's callback data, Discord's custom id, the value of
	// Slack's button. broker.DecodeStep reads it.
	Data string
	// ID is the button's own id where the platform keeps one beside its
	// data (Slack's action_id), or "".
	ID string
}

// Widget is an interactive element of a message other than a button: a
// select menu, a group of checkboxes, an overflow menu. It keeps what
// choosing in it sends, as Button does.
type Widget struct {
	// Kind is the platform's name of the element ("string select",
	// "checkboxes").
	Kind string
	// ID is the element's id as the platform holds it: Discord's
	// custom_id, Slack's action_id.
	ID string
	// Data is the step data the widget carries itself (Discord's
	// custom_id), or "" when it carries none.
	Data string
	// Submit is, for a widget that carries no step, the button whose
	// press sends what was chosen in it (Slack's Submit in the same
	// actions block), or nil.
	Submit *Button
	// Options are the widget's options in order.
	Options []Choice
	// Value is what the platform's harness needs to choose in it.
	Value string
}

// Choice is an option of a widget.
type Choice struct {
	// Label is what the option reads.
	Label string
	// Value is what choosing it sends.
	Value string
}

// Limits are the most bytes a platform lets a message's interactive
// elements carry. The suite counts bytes, which are at least the
// characters Discord and Slack count.
type Limits struct {
	// Data bounds the step data of a button or widget: Telegram's 64
	// bytes of callback data, Discord's 100-character custom_id, Slack's
	// 2,000-character button value.
	Data int
	// ID bounds an element's own id where it is not its data: Slack's
	// 255-character action_id. 0 where there is none.
	ID int
	// OptionValue bounds the value of a widget's option: Discord's 100
	// characters, Slack's 150. 0 where the platform has no widgets.
	OptionValue int
}

// Told is what a person is told after an action.
type Told struct {
	// Text is the words.
	Text string
	// Private is whether only that person sees them (a toast or alert,
	// an ephemeral message), not everyone in the chat.
	Private bool
}

// Person is someone of the platform the fake acts as.
type Person struct {
	// ID is the platform's user id, as broker.Inbound.User writes it and
	// a route's responders name it after "<channel>:".
	ID string
	// Name is how the platform names the person.
	Name string
}

// Platform is a fake platform with the channel that talks to it: what
// the suite runs against.
type Platform interface {
	Fake
	// Name is the channel's name in routes.
	Name() string
	// NewChannel builds the channel under test against the fake, handing
	// people's actions to h (the broker).
	// opts carries the bridge's logger.
	NewChannel(t *testing.T, h broker.InboundHandler, opts channels.Options) broker.Channel
}

// Fake drives a fake chat platform as people do: each fake server offers
// one (telegramfake, slackfake and discordfake's Harness). Every method
// acts as one person of the platform, a member of every chat: the first
// of People, or the one As names. Chats are route chats as broker.Target
// writes them.
type Fake interface {
	// People returns the two people the fake can act as.
	People() [2]Person
	// As returns the fake acting as People()[i].
	As(i int) Fake
	// Chats returns two chats the bot can post to.
	Chats() [2]string
	// Messages returns the bot's messages in chat, oldest first, as they
	// stand (edits applied), without replies to people.
	Messages(chat string) []Message
	// Tap presses b on message m in chat and returns what the person is
	// told (a toast, an ephemeral message, an interaction reply) once the
	// bridge has answered.
	Tap(chat string, m Message, b Button) (Told, error)
	// Choose chooses the options of w at the 0-based positions picked
	// (in w.Options) on message m in chat, and sends the choice as a
	// person does: Discord's select menu sends it at once, and a form
	// that opens for an optional note is sent with its fields empty;
	// Slack's checkboxes are ticked and their Submit pressed. It returns
	// what the person is told once the bridge has answered.
	Choose(chat string, m Message, w Widget, picked ...int) (Told, error)
	// Type sends text to chat as a message of its own.
	Type(chat, text string) error
	// Reply sends text as a reply to message m in chat (in its thread,
	// where the platform threads replies).
	Reply(chat string, m Message, text string) error
	// RateLimitPost makes the next post answer 429 with retryAfter as
	// the platform writes it (whole seconds on Telegram and Slack); the
	// posts after it succeed.
	RateLimitPost(retryAfter time.Duration)
	// RefuseChat makes every call naming chat fail in a way retrying
	// cannot fix (the chat is gone, the bot was removed).
	RefuseChat(chat string)
	// PostAttempts returns when each posting call the platform received
	// arrived, refused ones included, oldest first.
	PostAttempts() []time.Time
	// Limits are the most the platform lets a message's buttons and
	// widgets carry.
	Limits() Limits
}

// Build starts a fake platform for one case of the suite.
type Build func(t *testing.T) Platform
