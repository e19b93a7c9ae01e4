package telegram

import (
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// Every button carries a broker.Step (broker.EncodeStep, at most
// broker.MaxStepData bytes): the card's own for options and controls,
// and steps this channel builds for the text held from the card's one
// reply box (StepWithNote, StepDropNote), since Telegram holds that text
// in memory between the reply and the tap that sends it (notes.go).
// Buttons posted by earlier releases carry other data, read in
// legacy.go.

// The words of this channel's own buttons, for the text held from the
// reply box, are the catalog's "dialog.telegram.*" in the card's
// language; every other word comes from the card.

// keyboard builds the inline keyboard of card's current prompt, and the
// buttons whose callback data would not fit in Telegram's 64 bytes:
// those are left out (never truncated) and shown as typed commands.
func (c *Channel) keyboard(card broker.Card) ([][]tgbotapi.InlineKeyboardButton, []droppedButton) {
	var (
		rows    [][]tgbotapi.InlineKeyboardButton
		dropped []droppedButton
	)
	add := func(row *[]tgbotapi.InlineKeyboardButton, text, data, command string) {
		if len(data) > maxCallbackData {
			c.log.Warn("button left out: its callback data is longer than Telegram allows",
				"question_id", card.ID, "button", text, "bytes", len(data), "limit", maxCallbackData)
			if command != "" {
				dropped = append(dropped, droppedButton{label: text, command: command})
			}
			return
		}
		*row = append(*row, tgbotapi.NewInlineKeyboardButtonData(text, data))
	}
	if card.Current >= 0 {
		rows = append(rows, c.promptRows(i18n.For(card.Locale), card.ID, card.Prompts[card.Current], add)...)
	}
	var row []tgbotapi.InlineKeyboardButton
	for _, ctl := range card.Controls {
		label := ctl.Label
		if ctl.Kind == broker.ControlSnooze {
			label = "⏰ " + label
		}
		add(&row, label, ctl.Data, ctl.Command)
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows, dropped
}

// addButton adds a button to a row, or leaves it out when its data would
// not fit (keyboard).
type addButton func(row *[]tgbotapi.InlineKeyboardButton, text, data, command string)

// promptRows are the rows of the current prompt p of question id, with
// the channel's own words printed by w: its
// options and its controls. While the prompt holds text from the reply
// box (heldNotes), the options and Submit carry it as their note,
// "Send as my answer" sends it alone, and the Other control reads
// "Change…" beside "Drop note".
func (c *Channel) promptRows(w *i18n.Printer, id string, p broker.CardPrompt, add addButton) [][]tgbotapi.InlineKeyboardButton {
	var rows [][]tgbotapi.InlineKeyboardButton
	other, hasOther := p.Control(broker.ControlOther)
	held := c.holding(id, p)
	ticked := tickedOptions(p)
	for _, o := range p.Options {
		var row []tgbotapi.InlineKeyboardButton
		label := strconv.Itoa(o.Number) + ". " + o.Label
		if o.Recommended {
			label = "⭐ " + label
		}
		switch {
		case p.MultiSelect:
			box := "☐ "
			if o.Selected {
				box = "✓ "
			}
			add(&row, box+label, o.Data, o.Command)
		case held:
			s := broker.Step{Kind: broker.StepWithNote, Ref: p.Ref, Options: []int{o.Number - 1}}
			add(&row, w.T("dialog.telegram.plus_note", label), broker.EncodeStep(s), stepCommand(s, "<note>"))
		default:
			add(&row, label, o.Data, o.Command)
		}
		if len(row) > 0 {
			rows = append(rows, row)
		}
	}
	if held {
		var row []tgbotapi.InlineKeyboardButton
		alone := broker.Step{Kind: broker.StepWithNote, Ref: p.Ref}
		add(&row, w.T("dialog.telegram.send_as_answer"), broker.EncodeStep(alone), stepCommand(alone, "<text>"))
		if len(row) > 0 {
			rows = append(rows, row)
		}
	}
	var row []tgbotapi.InlineKeyboardButton
	if submit, ok := p.Control(broker.ControlSubmit); ok {
		nums := make([]string, len(ticked))
		for k, v := range ticked {
			nums[k] = strconv.Itoa(v + 1)
		}
		withNote := broker.Step{Kind: broker.StepWithNote, Ref: p.Ref, Options: ticked}
		switch {
		case held && len(ticked) > 0:
			add(&row, submit.Label+" ("+w.T("dialog.telegram.plus_note", strings.Join(nums, ", "))+")", broker.EncodeStep(withNote), stepCommand(withNote, "<note>"))
		case len(ticked) > 0:
			add(&row, submit.Label+" ("+strings.Join(nums, ", ")+")", submit.Data, submit.Command)
		default:
			add(&row, submit.Label, submit.Data, "")
		}
	}
	if hasOther {
		label := other.Label
		if held {
			label = w.T("dialog.telegram.change")
		}
		add(&row, label, other.Data, other.Command+" <text>")
		if held {
			add(&row, w.T("dialog.telegram.drop_note"), broker.EncodeStep(broker.Step{Kind: broker.StepDropNote, Ref: p.Ref}), "")
		}
	}
	if skip, ok := p.Control(broker.ControlSkip); ok {
		add(&row, skip.Label, skip.Data, skip.Command)
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows
}

// tickedOptions are the options of p ticked so far (0-based, in order).
func tickedOptions(p broker.CardPrompt) []int {
	var out []int
	for _, o := range p.Options {
		if o.Selected {
			out = append(out, o.Number-1)
		}
	}
	return out
}

// stepCommand is the command s sends with text, or "" when it sends
// none.
func stepCommand(s broker.Step, text string) string {
	cmd, _ := s.Command(text)
	return cmd
}
