package slackfake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Button is a button of a posted message.
type Button struct {
	BlockID, ActionID, Text, Value, Style string
}

type element struct {
	Type     string `json:"type"`
	ActionID string `json:"action_id"`
	Value    string `json:"value"`
	Style    string `json:"style"`
	Text     struct {
		Text string `json:"text"`
	} `json:"text"`
	Options []json.RawMessage `json:"options"`
}

type block struct {
	Type     string    `json:"type"`
	BlockID  string    `json:"block_id"`
	Elements []element `json:"elements"`
	Element  element   `json:"element"`
	// Accessory is a section's element, when it has one.
	Accessory *element        `json:"accessory"`
	Text      json.RawMessage `json:"text"`
}

func (m Message) blocks() []block {
	var bs []block
	_ = json.Unmarshal(m.Blocks, &bs)
	return bs
}

// Buttons lists the message's buttons in order.
func (m Message) Buttons() []Button {
	var out []Button
	for _, b := range m.blocks() {
		if b.Type != "actions" {
			continue
		}
		for _, e := range b.Elements {
			if e.Type == "button" {
				out = append(out, Button{BlockID: b.BlockID, ActionID: e.ActionID, Text: e.Text.Text, Value: e.Value, Style: e.Style})
			}
		}
	}
	return out
}

// Button finds the button with this text (first match), or reports false.
func (m Message) Button(text string) (Button, bool) {
	for _, b := range m.Buttons() {
		if b.Text == text {
			return b, true
		}
	}
	return Button{}, false
}

var seq atomic.Int64

func nextID(prefix string) string {
	return fmt.Sprintf("%s%06d", prefix, seq.Add(1))
}

func userJSON(u User) map[string]any {
	return map[string]any{"id": u.ID, "username": u.Name, "name": u.Name, "team_id": TeamID}
}

func interactionBase(typ string, u User) map[string]any {
	return map[string]any{
		"type": typ, "user": userJSON(u), "api_app_id": AppID, "token": "fake-verification-token",
		"trigger_id": nextID("1700000000.1234.trigger"),
		"team":       map[string]any{"id": TeamID, "domain": "fake"},
		"enterprise": nil, "is_enterprise_install": false,
	}
}

// ClickButton is the block_actions payload Slack sends when u taps b on m.
func ClickButton(m Message, u User, b Button) map[string]any {
	p := interactionBase("block_actions", u)
	p["container"] = map[string]any{"type": "message", "message_ts": m.TS, "channel_id": m.Channel, "is_ephemeral": false}
	p["channel"] = map[string]any{"id": m.Channel, "name": "general"}
	p["message"] = map[string]any{"type": "message", "user": BotUserID, "bot_id": BotID, "ts": m.TS, "text": m.Text, "blocks": m.Blocks}
	p["response_url"] = "https://hooks.slack.com/actions/" + TeamID + "/1/fake"
	p["state"] = map[string]any{"values": map[string]any{}}
	p["actions"] = []any{map[string]any{
		"type": "button", "action_id": b.ActionID, "block_id": b.BlockID, "value": b.Value,
		"text":  map[string]any{"type": "plain_text", "text": b.Text, "emoji": true},
		"style": b.Style, "action_ts": nextID("1700000001."),
	}}
	return p
}

// SubmitCheckboxes is the block_actions payload of u pressing the button
// submit after ticking the checkboxes at the 0-based indexes ticked, in
// submit's actions block. It fails when the block has no checkboxes.
func SubmitCheckboxes(m Message, u User, submit Button, ticked ...int) (map[string]any, error) {
	var boxes *element
	for _, b := range m.blocks() {
		if b.BlockID != submit.BlockID {
			continue
		}
		for i := range b.Elements {
			if b.Elements[i].Type == "checkboxes" {
				boxes = &b.Elements[i]
			}
		}
	}
	if boxes == nil {
		return nil, fmt.Errorf("slackfake: block %s has no checkboxes", submit.BlockID)
	}
	selected := []json.RawMessage{}
	for _, k := range ticked {
		if k < 0 || k >= len(boxes.Options) {
			return nil, fmt.Errorf("slackfake: no checkbox %d in block %s", k, submit.BlockID)
		}
		selected = append(selected, boxes.Options[k])
	}
	p := ClickButton(m, u, submit)
	p["state"] = map[string]any{"values": map[string]any{
		submit.BlockID: map[string]any{boxes.ActionID: map[string]any{"type": "checkboxes", "selected_options": selected}},
	}}
	return p, nil
}

// SubmitView is the view_submission payload of u typing text into the
// text input of the modal v and pressing its submit button.
func SubmitView(v OpenedView, u User, text string) (map[string]any, error) {
	return SubmitViewChoosing(v, u, text)
}

// SubmitViewChoosing is the view_submission payload of u ticking the
// options at the 0-based indexes picked in the modal's radio buttons or
// checkboxes, typing text into its text input (none when empty), and
// pressing its submit button.
func SubmitViewChoosing(v OpenedView, u User, text string, picked ...int) (map[string]any, error) {
	var view struct {
		CallbackID      string  `json:"callback_id"`
		PrivateMetadata string  `json:"private_metadata"`
		Blocks          []block `json:"blocks"`
		Title           any     `json:"title"`
	}
	if err := json.Unmarshal(v.View, &view); err != nil {
		return nil, fmt.Errorf("slackfake: bad view: %w", err)
	}
	values := map[string]any{}
	inputs := 0
	for _, b := range view.Blocks {
		if b.Type != "input" {
			continue
		}
		inputs++
		el := b.Element
		switch el.Type {
		case "plain_text_input":
			state := map[string]any{"type": el.Type, "value": nil}
			if text != "" {
				state["value"] = text
			}
			values[b.BlockID] = map[string]any{el.ActionID: state}
		case "radio_buttons", "checkboxes":
			selected := []json.RawMessage{}
			for _, k := range picked {
				if k < 0 || k >= len(el.Options) {
					return nil, fmt.Errorf("slackfake: no option %d in the modal's %s", k, el.Type)
				}
				selected = append(selected, el.Options[k])
			}
			if el.Type == "checkboxes" {
				values[b.BlockID] = map[string]any{el.ActionID: map[string]any{"type": el.Type, "selected_options": selected}}
				break
			}
			if len(selected) > 1 {
				return nil, fmt.Errorf("slackfake: radio buttons take one option, not %d", len(selected))
			}
			state := map[string]any{"type": el.Type, "selected_option": nil}
			if len(selected) == 1 {
				state["selected_option"] = selected[0]
			}
			values[b.BlockID] = map[string]any{el.ActionID: state}
		}
	}
	if inputs == 0 {
		return nil, fmt.Errorf("slackfake: the view has no input block")
	}
	p := interactionBase("view_submission", u)
	p["view"] = map[string]any{
		"id": nextID("VFAKE"), "team_id": TeamID, "type": "modal", "blocks": view.Blocks,
		"private_metadata": view.PrivateMetadata, "callback_id": view.CallbackID, "title": view.Title,
		"state": map[string]any{"values": values},
		"hash":  "1700000000.fakehash", "app_id": AppID, "bot_id": BotID, "root_view_id": "VROOT", "previous_view_id": nil,
	}
	p["response_urls"] = []any{}
	return p, nil
}

// SlashCommand is the form Slack sends for "/command text" typed by u in
// channel (channelName "directmessage" for a DM).
func SlashCommand(u User, channel, channelName, command, text string) url.Values {
	return url.Values{
		"token": {"fake-verification-token"}, "team_id": {TeamID}, "team_domain": {"fake"},
		"channel_id": {channel}, "channel_name": {channelName}, "user_id": {u.ID}, "user_name": {u.Name},
		"command": {command}, "text": {text}, "api_app_id": {AppID}, "is_enterprise_install": {"false"},
		"response_url": {"https://hooks.slack.com/commands/" + TeamID + "/1/fake"},
		"trigger_id":   {nextID("1700000000.5678.trigger")},
	}
}

// SlashPayload is the Socket Mode payload of a slash command form.
func SlashPayload(form url.Values) map[string]any {
	p := map[string]any{}
	for k := range form {
		p[k] = form.Get(k)
	}
	return p
}

// MessageOpts describes a message event.
type MessageOpts struct {
	User        User
	Channel     string
	Text        string // as typed; Slack escapes & < > in the event
	ThreadTS    string // the parent's ts for a reply in a thread
	ChannelType string // "channel" (default), "group", "im"
	SubType     string // "message_changed", "channel_join", "bot_message", …
	BotID       string
	EventID     string // generated when empty
}

// MessageEvent is the Events API payload (outer event_callback) of a
// message event.
func MessageEvent(o MessageOpts) map[string]any {
	ts := nextID("1700000100.")
	if o.ChannelType == "" {
		o.ChannelType = "channel"
	}
	if o.EventID == "" {
		o.EventID = nextID("Ev0FAKE")
	}
	ev := map[string]any{
		"type": "message", "text": escape(o.Text), "ts": ts, "event_ts": ts, "team": TeamID,
		"channel": o.Channel, "channel_type": o.ChannelType,
	}
	if o.User.ID != "" {
		ev["user"] = o.User.ID
		ev["client_msg_id"] = nextID("5e4d-fake-")
	}
	if o.ThreadTS != "" {
		ev["thread_ts"] = o.ThreadTS
		ev["parent_user_id"] = BotUserID
	}
	if o.SubType != "" {
		ev["subtype"] = o.SubType
	}
	if o.BotID != "" {
		ev["bot_id"] = o.BotID
	}
	return map[string]any{
		"token": "fake-verification-token", "team_id": TeamID, "api_app_id": AppID, "event": ev,
		"type": "event_callback", "event_id": o.EventID, "event_time": time.Now().Unix(),
		"authorizations": []any{map[string]any{"enterprise_id": nil, "team_id": TeamID, "user_id": BotUserID,
			"is_bot": true, "is_enterprise_install": false}},
		"is_ext_shared_channel": false, "event_context": "4-fake",
	}
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Sign returns the headers Slack sends with an HTTP delivery of body,
// signed with secret at time at.
func Sign(secret string, at time.Time, body []byte) http.Header {
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", ts)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return h
}
