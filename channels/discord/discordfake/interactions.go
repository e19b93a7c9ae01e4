package discordfake

import "encoding/json"

// A Person acts in the fake Discord: each method builds the JSON Discord
// would send for what they did, registers the interaction so the bot can
// answer it, and (unless the interaction is meant for the HTTP endpoint)
// dispatches it over the gateway.

// interactionBase builds the fields every interaction carries.
func (s *Server) interactionBase(typ int, u User, channel string, msg *Message, data any) (string, map[string]any) {
	s.mu.Lock()
	id := s.snowflakeLocked()
	token := "aW50ZXJhY3Rpb246" + randomHex(40)
	in := &interaction{token: token}
	if msg != nil {
		in.messageID = msg.ID
	}
	s.interactions[id] = in
	guild := ""
	if ch, ok := s.channels[channel]; ok {
		guild = ch.guildID
	}
	var msgJSON map[string]any
	if msg != nil {
		if m, ok := s.messages[msg.ID]; ok {
			msgJSON = m.json()
		}
	}
	s.mu.Unlock()
	p := map[string]any{
		"id": id, "application_id": s.AppID, "type": typ, "token": token, "version": 1,
		"channel_id": channel, "locale": "en-US", "app_permissions": "562949953863680",
		"entitlements": []any{}, "attachment_size_limit": 10485760,
	}
	if data != nil {
		p["data"] = data
	}
	if guild != "" {
		p["guild_id"] = guild
		p["guild_locale"] = "en-US"
		p["member"] = u.member()
		p["context"] = 0
		p["channel"] = map[string]any{"id": channel, "type": 0, "guild_id": guild, "name": "agents", "flags": 0, "permissions": "2248473465835073"}
		p["authorizing_integration_owners"] = map[string]string{"0": guild}
	} else {
		p["user"] = u.json()
		p["context"] = 1
		p["channel"] = map[string]any{"id": channel, "type": 1, "flags": 0, "recipients": []any{u.json()}}
		p["authorizing_integration_owners"] = map[string]string{"0": "0"}
	}
	if msgJSON != nil {
		p["message"] = msgJSON
	}
	return id, p
}

// ButtonInteraction is a tap on the button customID of message m.
func (s *Server) ButtonInteraction(u User, m *Message, customID string) (string, []byte) {
	id, p := s.interactionBase(3, u, m.ChannelID, m, map[string]any{"custom_id": customID, "component_type": TypeButton})
	return id, mustJSON(p)
}

// SelectInteraction is a submission of the select menu customID of m with
// the given values.
func (s *Server) SelectInteraction(u User, m *Message, customID string, values ...string) (string, []byte) {
	if values == nil {
		values = []string{}
	}
	id, p := s.interactionBase(3, u, m.ChannelID, m, map[string]any{"custom_id": customID, "component_type": TypeStringMenu, "values": values})
	return id, mustJSON(p)
}

// ModalInteraction is the submission of the modal customID, opened from
// a component of m, with text typed into its text input inputID.
func (s *Server) ModalInteraction(u User, m *Message, customID, inputID, text string) (string, []byte) {
	return s.ModalFieldsInteraction(u, m, customID, inputID, text)
}

// ModalFieldsInteraction is the submission of the modal customID, opened
// from a component of m, with its text inputs given as id, value pairs in
// the modal's order (an input left empty has the value "").
func (s *Server) ModalFieldsInteraction(u User, m *Message, customID string, fields ...string) (string, []byte) {
	rows := []any{}
	for i := 0; i+1 < len(fields); i += 2 {
		rows = append(rows, map[string]any{"type": TypeActionRow, "components": []any{
			map[string]any{"type": TypeTextInput, "custom_id": fields[i], "value": fields[i+1]},
		}})
	}
	data := map[string]any{"custom_id": customID, "components": rows}
	id, p := s.interactionBase(5, u, m.ChannelID, m, data)
	return id, mustJSON(p)
}

// CommandInteraction is the slash command name used in channel with
// string options, given as name, value pairs.
func (s *Server) CommandInteraction(u User, channel, name string, opts ...string) (string, []byte) {
	options := []any{}
	for i := 0; i+1 < len(opts); i += 2 {
		options = append(options, map[string]any{"name": opts[i], "type": 3, "value": opts[i+1]})
	}
	data := map[string]any{"id": s.snowflake(), "name": name, "type": 1, "options": options}
	id, p := s.interactionBase(2, u, channel, nil, data)
	if g, ok := p["guild_id"]; ok {
		data["guild_id"] = g
	}
	return id, mustJSON(p)
}

// PingInteraction is Discord's check of an interactions endpoint.
func (s *Server) PingInteraction() (string, []byte) {
	s.mu.Lock()
	id := s.snowflakeLocked()
	token := "aW50ZXJhY3Rpb246" + randomHex(40)
	s.interactions[id] = &interaction{token: token}
	s.mu.Unlock()
	return id, mustJSON(map[string]any{
		"id": id, "application_id": s.AppID, "type": 1, "token": token, "version": 1,
		"user":         map[string]any{"id": "643945264868098049", "username": "discord", "discriminator": "0000", "system": true},
		"entitlements": []any{}, "authorizing_integration_owners": map[string]any{},
	})
}

// Click taps a button over the gateway and returns the interaction id.
func (s *Server) Click(u User, m *Message, customID string) string {
	id, b := s.ButtonInteraction(u, m, customID)
	s.Dispatch("INTERACTION_CREATE", json.RawMessage(b))
	return id
}

// Choose submits a select menu over the gateway.
func (s *Server) Choose(u User, m *Message, customID string, values ...string) string {
	id, b := s.SelectInteraction(u, m, customID, values...)
	s.Dispatch("INTERACTION_CREATE", json.RawMessage(b))
	return id
}

// SubmitModal submits a modal over the gateway.
func (s *Server) SubmitModal(u User, m *Message, customID, inputID, text string) string {
	id, b := s.ModalInteraction(u, m, customID, inputID, text)
	s.Dispatch("INTERACTION_CREATE", json.RawMessage(b))
	return id
}

// SubmitModalFields submits a modal with several text inputs (id, value
// pairs) over the gateway.
func (s *Server) SubmitModalFields(u User, m *Message, customID string, fields ...string) string {
	id, b := s.ModalFieldsInteraction(u, m, customID, fields...)
	s.Dispatch("INTERACTION_CREATE", json.RawMessage(b))
	return id
}

// Command uses a slash command over the gateway.
func (s *Server) Command(u User, channel, name string, opts ...string) string {
	id, b := s.CommandInteraction(u, channel, name, opts...)
	s.Dispatch("INTERACTION_CREATE", json.RawMessage(b))
	return id
}

// Say posts a message by u in channel; replyTo, when not empty, makes it
// a reply to that message. It dispatches MESSAGE_CREATE and returns the
// message id.
func (s *Server) Say(u User, channel, content, replyTo string) string {
	return s.say(u, channel, content, replyTo, nil)
}

// say is Say with files attached to the message.
func (s *Server) say(u User, channel, content, replyTo string, files []File) string {
	s.mu.Lock()
	id := s.snowflakeLocked()
	guild := ""
	if ch, ok := s.channels[channel]; ok {
		guild = ch.guildID
	}
	m := &Message{ID: id, ChannelID: channel, GuildID: guild, Author: u, Content: content, Attachments: s.attachLocked(channel, files)}
	var referenced map[string]any
	if replyTo != "" {
		m.Reference = &Reference{MessageID: replyTo, ChannelID: channel, GuildID: guild}
		if r, ok := s.messages[replyTo]; ok {
			referenced = r.json()
		}
	}
	s.messages[id] = m
	s.order = append(s.order, id)
	ev := m.json()
	s.mu.Unlock()
	if referenced != nil {
		ev["referenced_message"] = referenced
	}
	if guild != "" {
		mem := u.member()
		delete(mem, "user")
		ev["member"] = mem
	}
	s.Dispatch("MESSAGE_CREATE", ev)
	return id
}

// mustJSON encodes plain maps of strings and numbers, which cannot fail.
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
