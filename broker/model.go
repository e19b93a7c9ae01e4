package broker

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Status is where a question stands. A question is pending until exactly one
// terminal status is set by a compare-and-set in the Store.
type Status string

// The statuses of a question.
const (
	StatusPending     Status = "pending"
	StatusAnswered    Status = "answered"
	StatusDeclined    Status = "declined"
	StatusCancelled   Status = "cancelled"
	StatusTimedOut    Status = "timed_out"
	StatusUnsupported Status = "unsupported"
)

// Terminal reports whether s ends a question.
func (s Status) Terminal() bool {
	switch s {
	case StatusAnswered, StatusDeclined, StatusCancelled, StatusTimedOut, StatusUnsupported:
		return true
	}
	return false
}

// Valid reports whether s is one of the known statuses.
func (s Status) Valid() bool { return s == StatusPending || s.Terminal() }

// Fallback says what a timed-out question fell back to for the prompts
// nobody answered: "default" when every one of them took its default,
// "none" when no default was used, "partial" when some took a default and
// the others have no answer. Prompts people answered keep their answers
// in every case.
const (
	FallbackDefault = "default"
	FallbackNone    = "none"
	FallbackPartial = "partial"
)

// Option actions returned untouched with an answer.
const (
	ActionEndTurn    = "end_turn"
	ActionNewSession = "new_session"
)

// RecommendedSuffix marks the recommended option; only the first option's
// label may carry it. Channels show it as the agent's suggestion (a
// badge, a star, a primary button whose label says so) with RecommendedHint,
// never as an answer already chosen.
const RecommendedSuffix = " (Recommended)"

// Option is one answer a person can pick.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Action      string `json:"action,omitempty"`
	Prefill     string `json:"prefill,omitempty"`
	// Edit is the text a person starts from when picking this option,
	// to change it and send it as the note beside the option (the
	// "Allow with changes" of a coding agent's prompt carries the
	// command or path). The web inbox fills its note box with it; in
	// chat the person types the note. Only a prompt that takes free text
	// has one.
	Edit string `json:"edit,omitempty"`
}

// Prompt is one question of a dialog.
type Prompt struct {
	Question    string     `json:"question"`
	Header      string     `json:"header,omitempty"`
	Options     []Option   `json:"options,omitempty"`
	MultiSelect bool       `json:"multi_select,omitempty"`
	Other       *bool      `json:"other,omitempty"`
	Default     StringList `json:"default,omitempty"`
	// Field, when set, types the answer (field.go): its type sets the
	// options, and the answer is checked and returned typed (Value).
	Field *Field `json:"field,omitempty"`
}

// AllowsOther reports whether free text is accepted for p (true unless
// other is explicitly false).
func (p Prompt) AllowsOther() bool { return p.Other == nil || *p.Other }

// Recommended reports whether the option at index i is the recommended one.
func (p Prompt) Recommended(i int) bool {
	return i == 0 && len(p.Options) > 0 && hasRecommendedSuffix(p.Options[0].Label)
}

// Answer is the answer to one prompt. AnsweredBy names the person who
// gave it (or skipped the prompt); it is absent on a default, which is
// marked Defaulted instead, and on answers stored by older bridges.
type Answer struct {
	Selected   []string `json:"selected"`
	CustomText string   `json:"custom_text"`
	Skipped    bool     `json:"skipped"`
	// Value is the typed answer to a prompt with a field: 8080, true,
	// "2026-12-03", ["eu","us"] (field.go).
	Value      Value      `json:"value,omitzero"`
	Defaulted  bool       `json:"defaulted,omitempty"`
	Action     string     `json:"action,omitempty"`
	Prefill    string     `json:"prefill,omitempty"`
	AnsweredBy *Responder `json:"answered_by,omitempty"`
	// Attachments are the files sent with the answer; CustomText carries
	// a marker for each ("[Image #1]", "[File #2: build.log]").
	Attachments []FileRef `json:"attachments,omitempty"`
}

// Responder names who acted on a question.
type Responder struct {
	Channel string `json:"channel"`
	User    string `json:"user"`
	Name    string `json:"name,omitempty"`
	// Person is the person the account belongs to (people.go), when the
	// configuration links it to one.
	Person *PersonRef `json:"person,omitempty"`
}

// Target is one place a route posts to: a channel and, for chat platforms,
// a chat in it. It is written "telegram:-100123" or "web".
type Target struct {
	Channel string `json:"channel"`
	Chat    string `json:"chat,omitempty"`
}

// String returns the "channel:chat" form of t.
func (t Target) String() string {
	if t.Chat == "" {
		return t.Channel
	}
	return t.Channel + ":" + t.Chat
}

// MessageRef is a posted copy of a question on a platform.
type MessageRef struct {
	Channel   string    `json:"channel"`
	Chat      string    `json:"chat,omitempty"`
	MessageID string    `json:"message_id,omitempty"`
	PostedAt  time.Time `json:"posted_at"`
}

// Target returns the target the message was posted to.
func (m MessageRef) Target() Target { return Target{Channel: m.Channel, Chat: m.Chat} }

// Question is one dialog from an agent to people, with everything the
// broker stores about it. Stores persist it whole (as JSON) and index the
// fields they need for lookups. A stored question always has an agent, a
// status and a creation time; the JSON leaves them out when empty, so that
// a store that keeps them apart (Redis keeps them in the record and the
// rest as the body) stores no empty copies of them.
type Question struct {
	ID          string        `json:"id"`
	Agent       string        `json:"agent,omitempty"`
	SessionID   string        `json:"session_id,omitempty"`
	ToolCallID  string        `json:"tool_call_id,omitempty"`
	Prompts     []Prompt      `json:"questions"`
	Route       string        `json:"route"`
	Targets     []Target      `json:"targets,omitempty"`
	Timeout     time.Duration `json:"timeout"`
	Context     string        `json:"context,omitempty"`
	Responders  []string      `json:"responders,omitempty"`
	CallbackURL string        `json:"callback_url,omitempty"`
	Fingerprint string        `json:"fingerprint,omitempty"`
	// Conversation marks a question of a live agent session (`bridge
	// channel`): once it has ended, what people write on it goes to the
	// session as a message (conversation.go).
	Conversation bool `json:"conversation,omitempty"`

	// Policy holds the team policies of the question (policy.go), and
	// RequestedBy the people it is asked for, who may not approve it
	// when Policy.ForbidRequester is set; State is what the policies
	// recorded so far (votes, snoozes).
	Policy      Policy      `json:"policy,omitzero"`
	RequestedBy []string    `json:"requested_by,omitempty"`
	State       PolicyState `json:"policy_state,omitzero"`

	// Lease is how long the asking agent may stay silent before the
	// question is treated as abandoned; zero means no lease.
	Lease      time.Duration `json:"lease,omitempty"`
	LeaseUntil time.Time     `json:"lease_until,omitzero"`

	// Reminders are the absolute times at which channels nudge people;
	// RemindersSent counts how many of them have been sent.
	Reminders     []time.Time `json:"reminders,omitempty"`
	RemindersSent int         `json:"reminders_sent,omitempty"`

	// Progress holds the answers given so far to the prompts of a
	// multi-prompt dialog, by prompt index; nil where not answered yet.
	Progress []*Answer `json:"progress,omitempty"`
	// Selections holds options toggled so far in multi-select prompts on
	// channels that build a selection tap by tap, by prompt index.
	Selections map[int][]int `json:"selections,omitempty"`

	Status     Status            `json:"status,omitempty"`
	Answers    map[string]Answer `json:"answers,omitempty"`
	Fallback   string            `json:"fallback,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	NotReady   bool              `json:"not_ready,omitempty"`
	AnsweredBy *Responder        `json:"answered_by,omitempty"`

	CreatedAt  time.Time `json:"created_at,omitzero"`
	ExpiresAt  time.Time `json:"expires_at"`
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
}

// NextReminder returns the time of the next reminder still to send, or the
// zero time when none is left.
func (q *Question) NextReminder() time.Time {
	if q.RemindersSent < len(q.Reminders) {
		return q.Reminders[q.RemindersSent]
	}
	return time.Time{}
}

// Resolution is the terminal state a compare-and-set writes.
type Resolution struct {
	Status     Status
	Answers    map[string]Answer
	Fallback   string
	Reason     string
	NotReady   bool
	AnsweredBy *Responder
	ResolvedAt time.Time

	// IfProgress, when set, makes the resolution conditional: the store
	// applies it only while exactly *IfProgress prompts of the question
	// have a person's answer in Progress, the count it was built from, and
	// otherwise fails with ErrConflict. A timeout sets it, so that a
	// dialog answer recorded between reading the question and resolving
	// it is never dropped (see Broker.Expire).
	IfProgress *int
	// IfRev, when set, makes the resolution conditional on the revision
	// of the question's policy state (State.Rev): a vote or a snooze
	// recorded after the resolution was built fails it with ErrConflict.
	IfRev *int64
}

// ProgressCount is how many prompts of q have a person's answer in
// Progress.
func (q *Question) ProgressCount() int {
	n := 0
	for _, a := range q.Progress {
		if a != nil {
			n++
		}
	}
	return n
}

// Result is what an agent sees of a question: the JSON of the HTTP API.
type Result struct {
	ID         string            `json:"id"`
	Status     Status            `json:"status,omitempty"`
	SessionID  string            `json:"session_id"`
	ToolCallID string            `json:"tool_call_id"`
	Questions  []Prompt          `json:"questions,omitempty"`
	Answers    map[string]Answer `json:"answers"`
	Fallback   string            `json:"fallback,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	NotReady   bool              `json:"not_ready,omitempty"`
	AnsweredBy *Responder        `json:"answered_by,omitempty"`
	// Voters lists every voter of the outcome of a question with a
	// quorum of more than one; answered_by is then this array in JSON.
	Voters     []Responder `json:"-"`
	Route      string      `json:"route,omitempty"`
	CreatedAt  time.Time   `json:"created_at"`
	ExpiresAt  time.Time   `json:"expires_at"`
	ResolvedAt *time.Time  `json:"resolved_at,omitempty"`
	// Snoozes is how many times people snoozed the question (each moved
	// ExpiresAt); a waiting agent that sees it grow learns of a new
	// deadline.
	Snoozes int `json:"snoozes,omitempty"`
	// Conversation is the question's Conversation.
	Conversation bool `json:"conversation,omitempty"`
}

// Result returns the agent-facing view of q.
func (q *Question) Result() Result {
	r := Result{
		ID: q.ID, Status: q.Status, SessionID: q.SessionID, ToolCallID: q.ToolCallID,
		Questions: q.Prompts, Answers: q.Answers, Fallback: q.Fallback, Reason: q.Reason,
		NotReady: q.NotReady, AnsweredBy: q.AnsweredBy, Route: q.Route, Conversation: q.Conversation,
		CreatedAt: q.CreatedAt, ExpiresAt: q.ExpiresAt, Snoozes: len(q.State.Snoozes),
	}
	r.Voters = q.voters()
	if r.Answers == nil {
		r.Answers = map[string]Answer{}
	}
	if !q.ResolvedAt.IsZero() {
		t := q.ResolvedAt
		r.ResolvedAt = &t
	}
	return r
}

// StringList is a list of strings that also unmarshals from a single
// string, so `"default": "SQLite"` and `"default": ["A", "B"]` both work.
type StringList []string

// UnmarshalJSON accepts a string or an array of strings.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		if one == "" {
			*l = nil
		} else {
			*l = StringList{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("must be a string or a list of strings")
	}
	*l = many
	return nil
}

// Duration is a time.Duration that reads and writes JSON as "30s" or as a
// number of seconds.
type Duration time.Duration

// UnmarshalJSON accepts "90s", "30m", "1h30m", "7d" (see ParseDuration)
// or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("must be a duration such as \"30s\" or \"7d\", or a number of seconds")
	}
	if math.Abs(secs) >= math.MaxInt64/float64(time.Second) {
		return fmt.Errorf("%s seconds is far too long (write e.g. \"7d\")", string(b))
	}
	*d = Duration(time.Duration(secs * float64(time.Second)))
	return nil
}

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }
