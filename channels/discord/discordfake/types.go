package discordfake

import (
	"encoding/json"
	"time"
)

// User is a person (or the bot) in the fake Discord.
type User struct {
	ID       string
	Username string
	// Roles are the person's role ids in the guild.
	Roles []string
	Bot   bool
}

func (u User) json() map[string]any {
	m := map[string]any{
		"id": u.ID, "username": u.Username, "discriminator": "0", "global_name": u.Username,
		"avatar": nil, "public_flags": 0, "avatar_decoration_data": nil,
	}
	if u.Bot {
		m["bot"] = true
	}
	return m
}

func (u User) member() map[string]any {
	roles := u.Roles
	if roles == nil {
		roles = []string{}
	}
	return map[string]any{
		"user": u.json(), "roles": roles, "nick": nil, "avatar": nil, "deaf": false, "mute": false,
		"flags": 0, "pending": false, "permissions": "2248473465835073",
		"joined_at": "2024-01-15T10:00:00.000000+00:00", "premium_since": nil,
		"communication_disabled_until": nil,
	}
}

// Component is a message component as Discord's JSON has it.
type Component struct {
	Type        int            `json:"type"`
	CustomID    string         `json:"custom_id,omitempty"`
	Label       string         `json:"label,omitempty"`
	Style       int            `json:"style,omitempty"`
	Disabled    bool           `json:"disabled,omitempty"`
	URL         string         `json:"url,omitempty"`
	Placeholder string         `json:"placeholder,omitempty"`
	MinValues   *int           `json:"min_values,omitempty"`
	MaxValues   int            `json:"max_values,omitempty"`
	Options     []SelectOption `json:"options,omitempty"`
	Components  []Component    `json:"components,omitempty"`
	Value       string         `json:"value,omitempty"`
	Required    bool           `json:"required,omitempty"`
	MinLength   int            `json:"min_length,omitempty"`
	MaxLength   int            `json:"max_length,omitempty"`
}

// SelectOption is one option of a select menu.
type SelectOption struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Default     bool   `json:"default,omitempty"`
}

// Component types and button styles.
const (
	TypeActionRow  = 1
	TypeButton     = 2
	TypeStringMenu = 3
	TypeTextInput  = 4

	StylePrimary   = 1
	StyleSecondary = 2
	StyleDanger    = 4
)

// AllowedMentions is the allowed_mentions object of a message.
type AllowedMentions struct {
	Parse       []string `json:"parse"`
	Roles       []string `json:"roles,omitempty"`
	Users       []string `json:"users,omitempty"`
	RepliedUser bool     `json:"replied_user"`
}

// Reference is a message_reference.
type Reference struct {
	Type      int    `json:"type,omitempty"`
	MessageID string `json:"message_id"`
	ChannelID string `json:"channel_id,omitempty"`
	GuildID   string `json:"guild_id,omitempty"`
}

// Message is a message in the fake Discord, as people would see it.
type Message struct {
	ID              string
	ChannelID       string
	GuildID         string
	Author          User
	Content         string
	Components      []Component
	AllowedMentions *AllowedMentions
	// AllowedMentionsRaw is the allowed_mentions JSON of the last request
	// that wrote the message, exactly as sent (nil when absent).
	AllowedMentionsRaw json.RawMessage
	Reference          *Reference
	Flags              int
	// Nonce is the nonce the message was created with, or "".
	Nonce     string
	Edits     int
	Timestamp time.Time
	EditedAt  time.Time

	// Attachments are the files a person sent with the message (files.go).
	Attachments []Attachment
}

// Buttons returns the message's buttons in order, across rows.
func (m *Message) Buttons() []Component { return collect(m.Components, TypeButton) }

// Menus returns the message's select menus.
func (m *Message) Menus() []Component { return collect(m.Components, TypeStringMenu) }

// CustomIDs returns the custom_id of every component of the message.
func (m *Message) CustomIDs() []string {
	var out []string
	var walk func([]Component)
	walk = func(cs []Component) {
		for _, c := range cs {
			if c.CustomID != "" {
				out = append(out, c.CustomID)
			}
			walk(c.Components)
		}
	}
	walk(m.Components)
	return out
}

func collect(cs []Component, typ int) []Component {
	var out []Component
	for _, c := range cs {
		if c.Type == typ {
			out = append(out, c)
		}
		out = append(out, collect(c.Components, typ)...)
	}
	return out
}

func (m *Message) json() map[string]any {
	comps := m.Components
	if comps == nil {
		comps = []Component{}
	}
	out := map[string]any{
		"id": m.ID, "type": 0, "channel_id": m.ChannelID, "author": m.Author.json(),
		"content": m.Content, "components": comps, "tts": false, "mention_everyone": false,
		"mentions": []any{}, "mention_roles": []any{}, "attachments": []any{}, "embeds": []any{},
		"pinned": false, "flags": m.Flags, "timestamp": m.Timestamp.Format(time.RFC3339Nano),
		"edited_timestamp": nil,
	}
	if !m.EditedAt.IsZero() {
		out["edited_timestamp"] = m.EditedAt.Format(time.RFC3339Nano)
	}
	if m.GuildID != "" {
		out["guild_id"] = m.GuildID
	}
	if m.Nonce != "" {
		out["nonce"] = m.Nonce
	}
	if len(m.Attachments) > 0 {
		list := make([]any, len(m.Attachments))
		for i, a := range m.Attachments {
			list[i] = a.json()
		}
		out["attachments"] = list
	}
	if m.Reference != nil {
		out["type"] = 19
		out["message_reference"] = m.Reference
	}
	return out
}

// Response is an interaction response as the bot sent it.
type Response struct {
	Type int `json:"type"`
	Data *struct {
		Content         string           `json:"content"`
		Flags           int              `json:"flags"`
		Components      *[]Component     `json:"components"`
		AllowedMentions *AllowedMentions `json:"allowed_mentions"`
		CustomID        string           `json:"custom_id"`
		Title           string           `json:"title"`
	} `json:"data"`
	// Raw is the JSON as sent.
	Raw json.RawMessage `json:"-"`
}

// Interaction response types and the ephemeral flag.
const (
	ResponsePong          = 1
	ResponseMessage       = 4
	ResponseDeferredReply = 5
	ResponseDeferredEdit  = 6
	ResponseUpdateMessage = 7
	ResponseModal         = 9
	FlagEphemeral         = 64
)

// Ephemeral reports whether the response is a message only the acting
// person sees.
func (r Response) Ephemeral() bool {
	return r.Type == ResponseMessage && r.Data != nil && r.Data.Flags&FlagEphemeral != 0
}

// Content returns the response's content, or "".
func (r Response) Content() string {
	if r.Data == nil {
		return ""
	}
	return r.Data.Content
}

// ParseResponse reads an interaction response.
func ParseResponse(b []byte) (Response, error) {
	var r Response
	if err := json.Unmarshal(b, &r); err != nil {
		return Response{}, err
	}
	r.Raw = append(json.RawMessage(nil), b...)
	return r, nil
}

// Request is one REST request the fake received.
type Request struct {
	Method string
	Path   string
	Body   []byte
	// Auth is whether the request carried the bot token.
	Auth bool
	// At is when the request arrived.
	At time.Time
}
