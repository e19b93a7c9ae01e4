package telegram

import (
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
)

// Every button carries a broker.Step (broker.EncodeStep, at most
// broker.MaxStepData bytes): the card's own for options and controls,
// and steps this channel builds for its notes (StepNote, StepWithNote,
// StepDropNote), since Telegram holds a note in memory between the reply
// box and the tap that sends it (notes.go). Buttons posted by earlier
// releases carry other data, read in legacy.go.

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
		p := card.Prompts[card.Current]
		_, hasNote := c.notes.get(noteKey{card.ID, card.Current})
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
			case hasNote:
				s := broker.Step{Kind: broker.StepWithNote, Ref: p.Ref, Options: []int{o.Number - 1}}
				add(&row, label+" + note", broker.EncodeStep(s), stepCommand(s, "<note>"))
			default:
				add(&row, label, o.Data, o.Command)
			}
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
			case hasNote && len(ticked) > 0:
				add(&row, submit.Label+" ("+strings.Join(nums, ", ")+" + note)", broker.EncodeStep(withNote), stepCommand(withNote, "<note>"))
			case hasNote:
				add(&row, submit.Label+" (note only)", broker.EncodeStep(withNote), stepCommand(withNote, "<note>"))
			case len(ticked) > 0:
				add(&row, submit.Label+" ("+strings.Join(nums, ", ")+")", submit.Data, submit.Command)
			default:
				add(&row, submit.Label, submit.Data, "")
			}
		}
		if other, ok := p.Control(broker.ControlOther); ok {
			add(&row, other.Label, other.Data, other.Command+" <text>")
			// With toggles the Other reply is the note when options
			// are ticked; otherwise Note… holds one for an option.
			if !p.MultiSelect && len(p.Options) > 0 {
				text := "📝 Note…"
				if hasNote {
					text = "📝 Change note…"
				}
				first := broker.Step{Kind: broker.StepWithNote, Ref: p.Ref, Options: []int{0}}
				add(&row, text, broker.EncodeStep(broker.Step{Kind: broker.StepNote, Ref: p.Ref}), stepCommand(first, "<note>"))
			}
			if hasNote {
				add(&row, "✖ Drop note", broker.EncodeStep(broker.Step{Kind: broker.StepDropNote, Ref: p.Ref}), "")
			}
		}
		if skip, ok := p.Control(broker.ControlSkip); ok {
			add(&row, skip.Label, skip.Data, skip.Command)
		}
		if len(row) > 0 {
			rows = append(rows, row)
		}
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
