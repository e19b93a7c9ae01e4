package discordfake

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Discord's limits on modals (interaction response type 9).
const (
	maxModalTitle       = 45
	maxModalRows        = 5
	maxTextInputLabel   = 45
	maxTextInputHolder  = 100
	maxTextInputLength  = 4000
	maxModalCustomIDLen = 100
)

// checkModal refuses a modal Discord would refuse: a custom_id or title
// missing or too long, no rows or more than five, a row that is not one
// text input, or a text input whose label, placeholder or lengths break
// Discord's limits.
func checkModal(body []byte) error {
	var resp struct {
		Data *struct {
			CustomID   string      `json:"custom_id"`
			Title      string      `json:"title"`
			Components []Component `json:"components"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Data == nil {
		return fmt.Errorf("data: a modal needs data")
	}
	d := resp.Data
	if n := utf8.RuneCountInString(d.CustomID); n == 0 || n > maxModalCustomIDLen {
		return fmt.Errorf("data.custom_id: must be 1 to %d in length", maxModalCustomIDLen)
	}
	if n := utf8.RuneCountInString(d.Title); n == 0 || n > maxModalTitle {
		return fmt.Errorf("data.title: must be 1 to %d in length", maxModalTitle)
	}
	if len(d.Components) == 0 || len(d.Components) > maxModalRows {
		return fmt.Errorf("data.components: must be 1 to %d rows", maxModalRows)
	}
	for r, row := range d.Components {
		if row.Type != TypeActionRow || len(row.Components) != 1 || row.Components[0].Type != TypeTextInput {
			return fmt.Errorf("data.components.%d: a modal row holds exactly one text input", r)
		}
		in := row.Components[0]
		switch {
		case in.CustomID == "" || utf8.RuneCountInString(in.CustomID) > maxModalCustomIDLen:
			return fmt.Errorf("data.components.%d.components.0.custom_id: must be 1 to %d in length", r, maxModalCustomIDLen)
		case in.Label == "" || utf8.RuneCountInString(in.Label) > maxTextInputLabel:
			return fmt.Errorf("data.components.%d.components.0.label: must be 1 to %d in length", r, maxTextInputLabel)
		case utf8.RuneCountInString(in.Placeholder) > maxTextInputHolder:
			return fmt.Errorf("data.components.%d.components.0.placeholder: must be %d or fewer in length", r, maxTextInputHolder)
		case in.Style != 1 && in.Style != 2:
			return fmt.Errorf("data.components.%d.components.0.style: must be 1 or 2", r)
		case in.MaxLength < 0 || in.MaxLength > maxTextInputLength || in.MinLength < 0 || in.MinLength > maxTextInputLength:
			return fmt.Errorf("data.components.%d.components.0: min_length and max_length must be 0 to %d", r, maxTextInputLength)
		case in.MaxLength > 0 && in.MinLength > in.MaxLength:
			return fmt.Errorf("data.components.%d.components.0.min_length: must not exceed max_length", r)
		}
	}
	return nil
}
