package telegramfake

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// getUpdates answers a long poll: it returns the queued updates at or
// after offset at once, or holds the request until one is queued, the
// timeout passes or the client goes away.
func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, p url.Values) {
	offset, _ := strconv.Atoi(p.Get("offset"))
	timeout, _ := strconv.Atoi(p.Get("timeout"))
	limit, _ := strconv.Atoi(p.Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()

	s.mu.Lock()
	if s.webhookURL != "" {
		s.mu.Unlock()
		writeError(w, Failure{Code: 409, Description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"})
		return
	}
	s.pollGen++
	gen := s.pollGen
	s.mu.Unlock()

	for {
		s.mu.Lock()
		if gen != s.pollGen {
			s.mu.Unlock()
			writeError(w, Failure{Code: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
			return
		}
		if offset > 0 {
			// Updates before offset are confirmed and forgotten.
			k := 0
			for _, u := range s.updates {
				if u.id >= offset {
					s.updates[k] = u
					k++
				}
			}
			s.updates = s.updates[:k]
		}
		var batch []json.RawMessage
		for _, u := range s.updates {
			if len(batch) == limit {
				break
			}
			batch = append(batch, u.body)
		}
		ch := s.changed
		s.mu.Unlock()
		if len(batch) > 0 {
			writeOK(w, batch, "")
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			writeOK(w, []json.RawMessage{}, "")
			return
		case <-r.Context().Done():
			return
		}
	}
}

// Send makes from write text in a chat, optionally as a reply to message
// replyTo, and delivers the update to the bot. A text starting with "/"
// carries the bot_command entity Telegram clients add. It returns the
// new message's id.
func (s *Server) Send(from User, chatID int64, text string, replyTo int) int {
	s.mu.Lock()
	m := s.addMessage(chatID, from, text, replyTo)
	if strings.HasPrefix(text, "/") {
		n := strings.IndexAny(text, " \n")
		if n < 0 {
			n = len(text)
		}
		m.Entities = []Entity{{Type: "bot_command", Offset: 0, Length: utf16Len(text[:n])}}
	}
	body := map[string]any{"message": s.messageJSON(m)}
	s.mu.Unlock()
	s.deliver(body)
	return m.ID
}

// Tap makes from tap the button with callback data data under message
// msgID, and delivers the callback query to the bot. It returns the
// callback query id, for Callback.
func (s *Server) Tap(from User, chatID int64, msgID int, data string) string {
	s.mu.Lock()
	s.nextCB++
	id := "4382bfdwdsb323b2d" + strconv.Itoa(s.nextCB)
	s.callbacks[id] = &CallbackAnswer{}
	cq := map[string]any{
		"id":            id,
		"from":          from,
		"chat_instance": "-" + strconv.FormatInt(chatID, 10),
		"data":          data,
	}
	if m, ok := s.msgs[msgKey{chatID, msgID}]; ok {
		cq["message"] = s.messageJSON(m)
	}
	body := map[string]any{"callback_query": cq}
	s.mu.Unlock()
	s.deliver(body)
	return id
}

// UpdateJSON returns the JSON of an update with the given body and a new
// update id, without delivering it: for tests that post it themselves.
func (s *Server) UpdateJSON(body map[string]any) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextUpdate++
	body["update_id"] = s.nextUpdate
	b, _ := json.Marshal(body)
	return b
}

// deliver queues an update for getUpdates, or POSTs it to the webhook.
func (s *Server) deliver(body map[string]any) {
	raw := s.UpdateJSON(body)
	s.mu.Lock()
	hook, secret := s.webhookURL, s.secret
	if hook == "" {
		var u struct {
			ID int `json:"update_id"`
		}
		_ = json.Unmarshal(raw, &u)
		s.updates = append(s.updates, queued{id: u.ID, body: raw})
		s.notify()
		s.mu.Unlock()
		return
	}
	s.webhookWait.Add(1)
	s.mu.Unlock()
	defer s.webhookWait.Done()
	req, err := http.NewRequest(http.MethodPost, hook, bytes.NewReader(raw))
	status := 0
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		if secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		}
		if resp, err := s.hookClient.Do(req); err == nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
	}
	s.mu.Lock()
	s.hookStatus = append(s.hookStatus, status)
	s.notify()
	s.mu.Unlock()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// AddBot makes by add the bot to chat c (which becomes known) and delivers
// the my_chat_member update Telegram sends then.
func (s *Server) AddBot(by User, c Chat) {
	s.AddChat(c)
	s.deliver(map[string]any{"my_chat_member": map[string]any{
		"chat":            c,
		"from":            by,
		"date":            time.Now().Unix(),
		"old_chat_member": map[string]any{"status": "left", "user": s.bot},
		"new_chat_member": map[string]any{"status": "member", "user": s.bot},
	}})
}
