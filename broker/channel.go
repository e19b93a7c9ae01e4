package broker

import (
	"context"
	"time"
)

// Channel posts questions to one platform. Each package under channels/
// implements it; the broker knows none of them by name. What a platform
// can do beyond posting (edit a posted copy, remind, receive) is a small
// interface of its own below, found by type assertion.
type Channel interface {
	// Name is the channel's name as routes write it ("telegram", "web").
	Name() string
	// Post renders q and sends it to chat. It returns the reference of the
	// posted message. A failure that retrying cannot fix (chat not found,
	// bot removed, bad credentials) is returned wrapped with Permanent. A
	// call the platform refuses for now (429) is returned wrapped with
	// RetryAfter, not sent again: the outbox paces its calls (Post, and
	// Update and Remind below), and sends again on a slot after the wait.
	// Any other failure is taken for a lost call (a timeout when ctx ran
	// out) and retried with backoff: the outbox classifies by these
	// wrappers only, never by an error's text (Classify).
	Post(ctx context.Context, q *Question, chat string) (MessageRef, error)
}

// Updater is implemented by channels whose posted copies show the
// question's state and so are edited when it changes. A channel without
// it (the text channel, whose inbox is the store) has nothing to edit.
type Updater interface {
	// Update edits a posted copy after q changed: resolved (buttons gone,
	// outcome, who, when) or, while pending, its progress in a dialog.
	Update(ctx context.Context, q *Question, m MessageRef) error
}

// Finder is implemented by channels whose copies carry a key the
// platform can be searched by (Slack's message metadata), so that a post
// whose outcome was lost (the bridge died between the platform's answer
// and its record, or the answer never arrived) is found instead of being
// made twice. The outbox asks only when an earlier attempt may have
// reached the platform.
type Finder interface {
	// FindCopy returns the reference of q's copy in chat, as Post would
	// have returned it, with ok false when there is none.
	FindCopy(ctx context.Context, q *Question, chat string) (ref MessageRef, ok bool, err error)
}

// Reminder is implemented by channels that can nudge people about a
// pending question (a reply in the thread, a visual state).
type Reminder interface {
	Remind(ctx context.Context, q *Question, m MessageRef) error
}

// Threader is implemented by channels that can post a message beside a
// posted copy, where people read it as part of that copy's conversation:
// in its thread (Slack), as a reply to it (Telegram, Discord), on its
// card (the web inbox). The broker posts an agent's replies to people
// through it (conversation.go); a channel without it takes none.
type Threader interface {
	// PostInThread posts text, an agent's words (plain text of at most
	// MaxReplyChars characters, which the channel escapes), beside m, a
	// copy of q.
	PostInThread(ctx context.Context, q *Question, m MessageRef, text string) error
}

// InProcess is implemented by channels whose copies live in the bridge's
// own process (the web inbox, the text channel): posting, editing and
// reminding there is a call that cannot fail for a while, so those copies
// need no durable task in the store's outbox. The broker makes them itself
// right after the store change that calls for them, on its own context,
// and records each posted copy with the question's id as its message id
// (which is what such a channel's Post returns).
type InProcess interface {
	// InProcess reports whether posts to chat are made in-process; a chat
	// the channel cannot take (Post would fail for good) is not.
	InProcess(chat string) bool
}

// Runner is implemented by channels with an inbound loop (long polling, a
// gateway connection). Run blocks until ctx ends, retrying with backoff
// every failure that a retry can fix (a lost connection, a platform that
// is down); it returns an error only for one that no retry fixes (a
// refused token, wrapping ErrPermanent). Nothing above it retries again.
type Runner interface {
	Run(ctx context.Context) error
}

// Singleton is implemented by Runners that the platform allows only once
// per bot (Telegram long polling, the Discord gateway); with several bridge
// instances only the leader runs them.
type Singleton interface {
	Singleton() bool
}

// Inbound is one action of a person on any platform, reduced to text: a
// button's value, a typed command, a reply to a question message.
type Inbound struct {
	Channel string
	Chat    string
	User    string
	Name    string
	Text    string
	// ReplyTo is the platform message id the text replies to, if any.
	ReplyTo string
	// QuestionID is set when the platform context already names the
	// question (a reply to its message, a thread, a button on it).
	QuestionID string
	// Private is true in a one-to-one chat with the bot, where a bare "2"
	// answers the only open question.
	Private bool
	// VerbsNeedSlash is set by channels whose group chats carry ordinary
	// conversation (Telegram). There, outside private chats, a command
	// verb typed without "/" ("pending", "answer …", "!answer …") counts
	// only in a reply to a question message; otherwise it is chatter and
	// the broker ignores it, so that "pending approval, back soon" makes
	// the bot say nothing.
	VerbsNeedSlash bool
	// Roles are the platform roles of the user, for responder checks.
	Roles []string
	// Attachments are the files sent with the message (attachments.go).
	Attachments []Attachment
	// Prompt, beside QuestionID, is the 1-based prompt of a dialog the
	// platform context names (a reply box under one prompt), or 0.
	Prompt int
	// Person is the person the account (Channel, User) belongs to. The
	// broker sets it from its directory (Config.People) as the action
	// arrives; channels leave it nil.
	Person *Person
}

// Responder returns who acted. The name and user id, shown after
// "Answered by" on every platform, are cleaned of control characters, line
// breaks and bidirectional controls.
func (in Inbound) Responder() *Responder {
	return &Responder{Channel: in.Channel, User: cleanName(in.User), Name: cleanName(in.Name), Person: in.Person.Ref()}
}

// Reply is what the person who acted is told, and what happened.
type Reply struct {
	// OK is true when the action was recorded.
	OK bool `json:"ok"`
	// Text says what happened: "Recorded: Postgres", "Already answered by
	// @ana at 14:02", "2 is not an option here: choose 1–3".
	Text string `json:"reply"`
	// Ignored is true when the text was not meant for the bridge (chatter
	// in a group that is no command and no reply to a question); channels
	// stay silent then.
	Ignored bool `json:"-"`
	// Question is the question acted on, as it stands after the action.
	Question *Question `json:"-"`
	// Err classifies a refusal for front doors that speak status codes:
	// ErrNotFound, ErrClosed, ErrInvalid, ErrForbidden, ErrConflict or
	// ErrUnavailable. It is nil when OK or Ignored.
	Err error `json:"-"`
}

// InboundHandler takes every person's action from the channels. The
// broker implements it; channels receive it in their constructors.
type InboundHandler interface {
	HandleInbound(ctx context.Context, in Inbound) Reply
}

// Elector decides which instance runs singleton work. RunAsLeader calls fn
// with a context that ends when leadership is lost, again whenever
// leadership is regained, and returns when ctx ends.
type Elector interface {
	RunAsLeader(ctx context.Context, name string, fn func(ctx context.Context)) error
}

// LocalElector is the Elector of a single instance: it is always the leader.
type LocalElector struct{}

// RunAsLeader runs fn once with ctx.
func (LocalElector) RunAsLeader(ctx context.Context, _ string, fn func(ctx context.Context)) error {
	fn(ctx)
	return nil
}

// Route names the targets a question is posted to and the rules that come
// with them. Questions name a route, or get "default".
type Route struct {
	Targets []Target `json:"targets"`
	// Responders, when not empty, are the only people who may answer:
	// entries "[channel:]user-id" or "[channel:]role:role-id".
	Responders []string `json:"responders,omitempty"`
	// Timeout replaces the broker's default timeout for this route.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Reminders replaces the broker's default reminder points.
	Reminders []float64 `json:"reminders,omitempty"`
	// Policy holds the route's team policies (policy.go).
	Policy Policy `json:"policy,omitzero"`
	// Locale is the language of the route's copies (languages.go), as
	// i18n.Parse returns it; "" leaves it to the channel.
	Locale string `json:"locale,omitempty"`
	// Unwatched says what happens to a question that nobody watches when
	// it is asked (unwatched.go): UnwatchedWait (also "") or
	// UnwatchedEscalate.
	Unwatched string `json:"unwatched,omitempty"`
}
