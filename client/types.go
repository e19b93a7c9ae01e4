package client

import (
	"encoding/json"
	"strings"
	"time"
)

// Status is where a question stands.
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

// Option is one answer a person can pick.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Action      string `json:"action,omitempty"`
	Prefill     string `json:"prefill,omitempty"`
	// Edit is the text a person starts from when picking this option,
	// to change and send as the note beside it; the web inbox fills its
	// note box with it. Only on a prompt that takes free text.
	Edit string `json:"edit,omitempty"`
}

// Prompt is one question of a dialog.
type Prompt struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options,omitempty"`
	MultiSelect bool     `json:"multi_select,omitempty"`
	// Other, when false, forbids free-text answers.
	Other   *bool    `json:"other,omitempty"`
	Default []string `json:"default,omitempty"`
	// Field, when set, types the answer (field.go): the bridge checks
	// it, and returns it typed in Answer.Value.
	Field *Field `json:"field,omitempty"`
}

// Question is what an agent asks: one prompt (the Question, Options, …
// fields) or a dialog of up to four Prompts.
type Question struct {
	SessionID   string    `json:"session_id,omitempty"`
	ToolCallID  string    `json:"tool_call_id,omitempty"`
	Prompts     []Prompt  `json:"questions,omitempty"`
	Route       string    `json:"route,omitempty"`
	Timeout     string    `json:"timeout,omitempty"`
	Context     string    `json:"context,omitempty"`
	Responders  []string  `json:"responders,omitempty"`
	CallbackURL string    `json:"callback_url,omitempty"`
	Lease       string    `json:"lease,omitempty"`
	Reminders   []float64 `json:"reminders,omitempty"`
	Wait        string    `json:"wait,omitempty"`
	// Conversation marks a question of a live agent session: once it has
	// ended, what people write on it reaches the session (conversations.go).
	Conversation bool `json:"conversation,omitempty"`

	Question    string   `json:"question,omitempty"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options,omitempty"`
	MultiSelect bool     `json:"multi_select,omitempty"`
	Other       *bool    `json:"other,omitempty"`
	Default     []string `json:"default,omitempty"`
	Field       *Field   `json:"field,omitempty"`
}

// Answer is the answer to one prompt. AnsweredBy names the person who
// gave it (or skipped the prompt); a default has none and is marked
// Defaulted instead.
type Answer struct {
	Selected   []string `json:"selected"`
	CustomText string   `json:"custom_text"`
	Skipped    bool     `json:"skipped"`
	// Value is the typed answer to a prompt with a field, as JSON:
	// 8080, true, "2026-12-03", ["eu","us"].
	Value      json.RawMessage `json:"value,omitempty"`
	Defaulted  bool            `json:"defaulted,omitempty"`
	Action     string          `json:"action,omitempty"`
	Prefill    string          `json:"prefill,omitempty"`
	AnsweredBy *Responder      `json:"answered_by,omitempty"`
	// Attachments are the files sent with the answer; CustomText carries
	// a marker for each ("[Image #1]", "[File #2: build.log]"). Fetch
	// one with Client.Attachment.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is a file sent with an answer. URL is the path on the bridge
// that returns its bytes to the asking agent.
type Attachment struct {
	N    int    `json:"n"`
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
	URL  string `json:"url"`
}

// IsImage reports whether the file is a picture.
func (a Attachment) IsImage() bool { return strings.HasPrefix(a.Type, "image/") }

// Responder names who acted.
type Responder struct {
	Channel string `json:"channel"`
	User    string `json:"user"`
	Name    string `json:"name,omitempty"`
	// Person is the person the account belongs to, when the bridge's
	// configuration links it to one (docs/people.md).
	Person *Person `json:"person,omitempty"`
}

// Person names the person behind an action: id and display name.
type Person struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Result is a question as the server reports it.
type Result struct {
	ID         string            `json:"id"`
	Status     Status            `json:"status"`
	SessionID  string            `json:"session_id"`
	ToolCallID string            `json:"tool_call_id"`
	Questions  []Prompt          `json:"questions,omitempty"`
	Answers    map[string]Answer `json:"answers"`
	// Fallback says what a timed-out question's unanswered prompts got:
	// FallbackDefault, FallbackPartial or FallbackNone.
	Fallback   string     `json:"fallback,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	NotReady   bool       `json:"not_ready,omitempty"`
	AnsweredBy *Responder `json:"answered_by,omitempty"`
	// Voters lists every voter of the outcome of a question that needed
	// several people (a quorum); the server then sends answered_by as
	// this array, and AnsweredBy is its first entry.
	Voters     []Responder `json:"-"`
	Route      string      `json:"route,omitempty"`
	CreatedAt  time.Time   `json:"created_at"`
	ExpiresAt  time.Time   `json:"expires_at"`
	ResolvedAt *time.Time  `json:"resolved_at,omitempty"`
	// Snoozes is how many times people snoozed the question, each time
	// moving ExpiresAt.
	Snoozes int `json:"snoozes,omitempty"`
	// Conversation is true for a question of a live agent session.
	Conversation bool `json:"conversation,omitempty"`
	// Warnings come with the answer to an ask (Submit, and what Ask and
	// AskRaw return): what may keep the question from being answered,
	// such as "nobody is watching the web inbox; the question will wait
	// until 14:30 UTC, then time out with no answer".
	Warnings []string `json:"warnings,omitempty"`
}

// The fallbacks of a timed-out question. Prompts people answered keep
// their answers whatever the fallback.
const (
	// FallbackDefault: every prompt nobody answered took its default.
	FallbackDefault = "default"
	// FallbackPartial: some unanswered prompts took their defaults; the
	// others have no answer.
	FallbackPartial = "partial"
	// FallbackNone: no default was used.
	FallbackNone = "none"
)

// Terminal reports whether the question has ended.
func (r *Result) Terminal() bool { return r.Status != StatusPending && r.Status != "" }

// CommandResult says what a text command did.
type CommandResult struct {
	OK       bool    `json:"ok"`
	Reply    string  `json:"reply"`
	Question *Result `json:"question,omitempty"`
}
