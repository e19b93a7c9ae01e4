package discordfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf16"
)

// Discord's limits, enforced here so that a bot breaking them fails its
// tests the way it would fail in production (400 Invalid Form Body).
const (
	maxContent   = 2000
	maxRows      = 5
	maxPerRow    = 5
	maxCustomID  = 100
	maxLabel     = 80
	maxMenuItems = 25
)

func textUnits(s string) int { return len(utf16.Encode([]rune(s))) }

// checkComponents validates message components against Discord's rules.
func checkComponents(rows []Component) error {
	if len(rows) > maxRows {
		return fmt.Errorf("components: must be %d or fewer in length", maxRows)
	}
	seen := map[string]bool{}
	for i, row := range rows {
		if row.Type != TypeActionRow {
			return fmt.Errorf("components[%d]: top-level components must be action rows", i)
		}
		if len(row.Components) == 0 || len(row.Components) > maxPerRow {
			return fmt.Errorf("components[%d].components: must be 1 to %d in length", i, maxPerRow)
		}
		for j, c := range row.Components {
			f := fmt.Sprintf("components[%d].components[%d]", i, j)
			if c.Type == TypeStringMenu && len(row.Components) != 1 {
				return fmt.Errorf("%s: a select menu must be alone in its row", f)
			}
			if c.CustomID == "" && c.URL == "" {
				return fmt.Errorf("%s.custom_id: required", f)
			}
			if len([]rune(c.CustomID)) > maxCustomID {
				return fmt.Errorf("%s.custom_id: must be %d or fewer in length", f, maxCustomID)
			}
			if seen[c.CustomID] {
				return fmt.Errorf("%s.custom_id: component custom id cannot be duplicated", f)
			}
			seen[c.CustomID] = true
			if len([]rune(c.Label)) > maxLabel {
				return fmt.Errorf("%s.label: must be %d or fewer in length", f, maxLabel)
			}
			if c.Type == TypeStringMenu {
				if len(c.Options) == 0 || len(c.Options) > maxMenuItems {
					return fmt.Errorf("%s.options: must be 1 to %d in length", f, maxMenuItems)
				}
				if c.MaxValues > len(c.Options) {
					return fmt.Errorf("%s.max_values: must be less than or equal to %d", f, len(c.Options))
				}
			}
		}
	}
	return nil
}

func invalidForm(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusBadRequest, map[string]any{
		"message": "Invalid Form Body", "code": 50035, "errors": map[string]any{"_errors": []map[string]string{{"code": "BASE_TYPE_INVALID", "message": err.Error()}}},
	})
}

// channelFor checks that a channel exists and may be written to.
func (s *Server) channelFor(w http.ResponseWriter, id string) (*fakeChannel, bool) {
	s.mu.Lock()
	c, ok := s.channels[id]
	s.mu.Unlock()
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "Unknown Channel", 10003)
		return nil, false
	case c.deny == 50001:
		writeError(w, http.StatusForbidden, "Missing Access", 50001)
		return nil, false
	case c.deny == 50013:
		writeError(w, http.StatusForbidden, "Missing Permissions", 50013)
		return nil, false
	case c.dmWith != "" && s.dmClosed(c.dmWith):
		writeError(w, http.StatusForbidden, "Cannot send messages to this user", 50007)
		return nil, false
	}
	return c, true
}

type messageBody struct {
	Content         *string         `json:"content"`
	Components      *[]Component    `json:"components"`
	AllowedMentions json.RawMessage `json:"allowed_mentions"`
	Reference       *Reference      `json:"message_reference"`
	Flags           int             `json:"flags"`
}

func (b messageBody) check() error {
	if b.Content != nil && textUnits(*b.Content) > maxContent {
		return fmt.Errorf("content: must be %d or fewer in length", maxContent)
	}
	if b.Components != nil {
		return checkComponents(*b.Components)
	}
	return nil
}

func (b messageBody) mentions() *AllowedMentions {
	if len(b.AllowedMentions) == 0 || string(b.AllowedMentions) == "null" {
		return nil
	}
	var am AllowedMentions
	if json.Unmarshal(b.AllowedMentions, &am) != nil {
		return nil
	}
	return &am
}

// decodeMessage reads a message body as Discord does, answering its
// errors (a 400 for bad JSON, Invalid Form Body for a broken field); it
// reports whether the body is usable.
func decodeMessage(w http.ResponseWriter, body []byte) (messageBody, bool) {
	var b messageBody
	if err := json.Unmarshal(body, &b); err != nil {
		writeError(w, http.StatusBadRequest, "400: Bad Request", 0)
		return b, false
	}
	if err := b.check(); err != nil {
		invalidForm(w, err)
		return b, false
	}
	return b, true
}

func (s *Server) createMessage(w http.ResponseWriter, r *http.Request, body []byte) {
	chID := r.PathValue("channel")
	ch, ok := s.channelFor(w, chID)
	if !ok {
		return
	}
	body, files, ok := s.uploadBody(w, r, body)
	if !ok {
		return
	}
	b, ok := decodeMessage(w, body)
	if !ok {
		return
	}
	if (b.Content == nil || *b.Content == "") && (b.Components == nil || len(*b.Components) == 0) && len(files) == 0 {
		writeError(w, http.StatusBadRequest, "Cannot send an empty message", 50006)
		return
	}
	var nb nonceBody
	_ = json.Unmarshal(body, &nb) // the body decoded above
	nonce, err := nb.nonce()
	if err != nil {
		invalidForm(w, err)
		return
	}
	now := time.Now()
	s.mu.Lock()
	if nb.EnforceNonce && nonce != "" {
		if old, ok := s.earlierMessage(s.BotUser.ID, nonce, now); ok {
			out := old.json()
			lose := s.loseAnswer()
			s.mu.Unlock()
			if lose {
				hangUp(w)
				return
			}
			writeJSON(w, http.StatusOK, out)
			return
		}
	}
	m := &Message{
		ChannelID: chID, GuildID: ch.guildID, Author: s.BotUser, AllowedMentions: b.mentions(), Nonce: nonce,
		AllowedMentionsRaw: b.AllowedMentions, Reference: b.Reference, Flags: b.Flags, Timestamp: time.Now(),
	}
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Components != nil {
		m.Components = *b.Components
	}
	m.ID = s.snowflakeLocked()
	m.Attachments = s.attachLocked(chID, files)
	s.messages[m.ID] = m
	s.order = append(s.order, m.ID)
	s.rememberNonce(m.Author.ID, nonce, m.ID, now)
	out := m.json()
	lose := s.loseAnswer()
	s.mu.Unlock()
	if lose {
		hangUp(w)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) editMessage(w http.ResponseWriter, r *http.Request, body []byte) {
	chID, id := r.PathValue("channel"), r.PathValue("message")
	if _, ok := s.channelFor(w, chID); !ok {
		return
	}
	b, ok := decodeMessage(w, body)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[id]
	if !ok || m.ChannelID != chID {
		writeError(w, http.StatusNotFound, "Unknown Message", 10008)
		return
	}
	s.applyEdit(m, b)
	writeJSON(w, http.StatusOK, m.json())
}

// applyEdit changes what an edit names; s.mu is held.
func (s *Server) applyEdit(m *Message, b messageBody) {
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Components != nil {
		m.Components = *b.Components
	}
	if b.AllowedMentions != nil {
		m.AllowedMentions, m.AllowedMentionsRaw = b.mentions(), b.AllowedMentions
	}
	m.Edits++
	m.EditedAt = time.Now()
}

func (s *Server) callback(w http.ResponseWriter, r *http.Request, body []byte) {
	status, msg, code := s.respond(r.PathValue("id"), r.PathValue("token"), body)
	if status != http.StatusNoContent {
		writeError(w, status, msg, code)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// respond records and applies an interaction response, the way Discord
// does for a callback or for the body of an HTTP interactions reply.
func (s *Server) respond(id, token string, body []byte) (status int, msg string, code int) {
	resp, err := ParseResponse(body)
	if err != nil {
		return http.StatusBadRequest, "400: Bad Request", 0
	}
	var data messageBody
	if resp.Data != nil {
		var raw struct {
			Data messageBody `json:"data"`
		}
		_ = json.Unmarshal(body, &raw)
		data = raw.Data
		if err := data.check(); err != nil && resp.Type != ResponseModal {
			return http.StatusBadRequest, "Invalid Form Body: " + err.Error(), 50035
		}
	}
	if resp.Type == ResponseModal {
		if err := checkModal(body); err != nil {
			return http.StatusBadRequest, "Invalid Form Body: " + err.Error(), 50035
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.interactions[id]
	if !ok || in.token != token {
		return http.StatusNotFound, "Unknown interaction", 10062
	}
	if in.responded {
		return http.StatusBadRequest, "Interaction has already been acknowledged.", 40060
	}
	switch resp.Type {
	case ResponsePong, ResponseMessage, ResponseDeferredReply, ResponseDeferredEdit, ResponseModal:
	case ResponseUpdateMessage:
		m, ok := s.messages[in.messageID]
		if !ok {
			return http.StatusBadRequest, "Interaction has no message to update", 50035
		}
		s.applyEdit(m, data)
	default:
		return http.StatusBadRequest, "Invalid Form Body: type", 50035
	}
	in.responded, in.response = true, resp
	return http.StatusNoContent, "", 0
}

func (s *Server) overwriteCommands(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.PathValue("app") != s.AppID {
		writeError(w, http.StatusForbidden, "Missing Access", 50001)
		return
	}
	var cmds []map[string]any
	if err := json.Unmarshal(body, &cmds); err != nil {
		invalidForm(w, fmt.Errorf("body must be an array of commands"))
		return
	}
	scope := r.PathValue("guild")
	for i, c := range cmds {
		name, _ := c["name"].(string)
		desc, _ := c["description"].(string)
		if name == "" || len(name) > 32 || len([]rune(desc)) > 100 || desc == "" {
			invalidForm(w, fmt.Errorf("%d: name must be 1-32 characters and description 1-100", i))
			return
		}
		c["id"] = s.snowflake()
		c["application_id"] = s.AppID
		c["version"] = s.snowflake()
		c["default_member_permissions"] = nil
		if scope != "" {
			c["guild_id"] = scope
		}
	}
	if scope == "" {
		scope = "global"
	}
	out, _ := json.Marshal(cmds)
	s.mu.Lock()
	s.commands[scope] = body
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

func (s *Server) dmClosed(user string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closedDMs[user]
}

// openDM is POST /users/@me/channels: the DM channel with a person.
func (s *Server) openDM(w http.ResponseWriter, r *http.Request, body []byte) {
	var b struct {
		RecipientID string `json:"recipient_id"`
	}
	_ = json.Unmarshal(body, &b)
	s.mu.Lock()
	u, ok := s.users[b.RecipientID]
	if !ok {
		s.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]any{
			"message": "Invalid Form Body", "code": 50035,
			"errors": map[string]any{"recipient_id": map[string]any{"_errors": []map[string]string{{"code": "NUMBER_TYPE_COERCE", "message": "Value \"" + b.RecipientID + "\" is not snowflake."}}}},
		})
		return
	}
	id := s.dmLocked(u.ID)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"id": id, "type": 1, "last_message_id": nil, "flags": 0, "recipients": []any{u.json()},
	})
}
