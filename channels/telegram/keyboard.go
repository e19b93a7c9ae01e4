package telegram

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
)

// Callback data of buttons that are steps of the interface, not answers.
// Answer and toggle buttons carry the broker's command itself ("/answer
// k7m2qx 2", "/toggle k7m2qx 2").
const (
	// otherData asks for free text: o:<id>:<prompt>.
	otherData = "o:"
	// doneEmptyData is Done before anything is selected: d:<id>:<prompt>.
	doneEmptyData = "d:"
	// noteData asks for a note to go with an option: n:<id>:<prompt>.
	noteData = "n:"
	// withNoteData sends options with the note held for the prompt:
	// a:<id>:<prompt>:<prompts>:<options>, options as 1-based digits
	// ("13"), or 0 for the note alone.
	withNoteData = "a:"
	// dropNoteData forgets the held note: x:<id>:<prompt>.
	dropNoteData = "x:"
)

// keyboard builds the inline keyboard for prompt cur of q, and the
// buttons whose callback data would not fit in Telegram's 64 bytes:
// those are left out (never truncated) and shown as typed commands.
func (c *Channel) keyboard(q *broker.Question, cur int) ([][]tgbotapi.InlineKeyboardButton, []droppedButton) {
	var (
		rows    [][]tgbotapi.InlineKeyboardButton
		dropped []droppedButton
	)
	add := func(row *[]tgbotapi.InlineKeyboardButton, text, data, command string) {
		if len(data) > maxCallbackData {
			c.log.Warn("button left out: its callback data is longer than Telegram allows",
				"question_id", q.ID, "button", text, "bytes", len(data), "limit", maxCallbackData)
			if command != "" {
				dropped = append(dropped, droppedButton{label: text, command: command})
			}
			return
		}
		*row = append(*row, tgbotapi.NewInlineKeyboardButtonData(text, data))
	}
	if cur >= 0 {
		p := q.Prompts[cur]
		toggles := p.MultiSelect
		sel := broker.SelectedOptions(q.Selections[cur])
		_, hasNote := c.notes.get(noteKey{q.ID, cur})
		for k, o := range p.Options {
			var row []tgbotapi.InlineKeyboardButton
			label := strconv.Itoa(k+1) + ". " + o.Label
			if p.Recommended(k) {
				label = "⭐ " + label
			}
			switch {
			case toggles:
				box := "☐ "
				if slices.Contains(sel, k) {
					box = "✓ "
				}
				add(&row, box+label, broker.FormatToggle(q.Ref(cur), k), broker.FormatOption(q.Ref(cur), k))
			case hasNote:
				add(&row, label+" + note", withNote(q.Ref(cur), []int{k}), broker.FormatOptionsOther(q.Ref(cur), []int{k}, "<note>"))
			default:
				cmd := broker.FormatOption(q.Ref(cur), k)
				add(&row, label, cmd, cmd)
			}
			if len(row) > 0 {
				rows = append(rows, row)
			}
		}
		var row []tgbotapi.InlineKeyboardButton
		if toggles {
			nums := make([]string, len(sel))
			for k, v := range sel {
				nums[k] = strconv.Itoa(v + 1)
			}
			switch {
			case hasNote && len(sel) > 0:
				add(&row, "Done ("+strings.Join(nums, ", ")+" + note)", withNote(q.Ref(cur), sel), broker.FormatOptionsOther(q.Ref(cur), sel, "<note>"))
			case hasNote:
				add(&row, "Done (note only)", withNote(q.Ref(cur), nil), broker.FormatOther(q.Ref(cur), "<note>"))
			case len(sel) > 0:
				cmd := broker.FormatOption(q.Ref(cur), sel...)
				add(&row, "Done ("+strings.Join(nums, ", ")+")", cmd, cmd)
			default:
				add(&row, "Done", fmt.Sprintf("%s%s:%d", doneEmptyData, q.ID, cur), "")
			}
		}
		if p.AllowsOther() {
			text := "Other…"
			if len(p.Options) == 0 {
				text = "Answer…"
			}
			add(&row, text, fmt.Sprintf("%s%s:%d", otherData, q.ID, cur), broker.FormatOther(q.Ref(cur), "<text>"))
			// With toggles the Other… reply is the note when options
			// are ticked; otherwise Note… holds one for an option.
			if !toggles && len(p.Options) > 0 {
				text := "📝 Note…"
				if hasNote {
					text = "📝 Change note…"
				}
				add(&row, text, fmt.Sprintf("%s%s:%d", noteData, q.ID, cur), broker.FormatOptionsOther(q.Ref(cur), []int{0}, "<note>"))
			}
			if hasNote {
				add(&row, "✖ Drop note", fmt.Sprintf("%s%s:%d", dropNoteData, q.ID, cur), "")
			}
		}
		cmd := broker.FormatSkip(q.Ref(cur))
		add(&row, "Skip", cmd, cmd)
		if len(row) > 0 {
			rows = append(rows, row)
		}
	}
	var row []tgbotapi.InlineKeyboardButton
	cmd := broker.FormatDiscuss(q.ID, "")
	add(&row, "Not ready", cmd, cmd)
	cmd = broker.FormatDecline(q.ID, "")
	add(&row, "Decline", cmd, cmd)
	if cmd := broker.FormatSnooze(q); cmd != "" {
		add(&row, "⏰ Snooze", cmd, cmd)
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows, dropped
}

// parseStep reads "<prefix><id>:<n>[:<m>]" callback data.
func parseStep(data, prefix string, parts int) (string, []int, bool) {
	fields := strings.Split(strings.TrimPrefix(data, prefix), ":")
	if len(fields) != parts+1 || !broker.ValidID(fields[0]) {
		return "", nil, false
	}
	nums := make([]int, parts)
	for k := range parts {
		n, err := strconv.Atoi(fields[k+1])
		if err != nil || n < 0 || n >= broker.MaxPrompts*broker.MaxOptions {
			return "", nil, false
		}
		nums[k] = n
	}
	return fields[0], nums, true
}
