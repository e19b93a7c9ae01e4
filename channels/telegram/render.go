package telegram

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

const (
	// maxText is Telegram's limit on a message's text after entity
	// parsing, in UTF-16 code units.
	maxText = 4096
	// maxCallbackData is Telegram's limit on a button's callback data.
	maxCallbackData = 64
	// maxToast is Telegram's limit on a callback answer's text.
	maxToast = 200
	// fitMargin is added to the excess the card is asked to shed. Shorten
	// counts characters and Telegram UTF-16 units of the text after its
	// HTML entities are read, so each character shed frees at least one
	// unit; the margin keeps a text that was over by a hair from landing
	// exactly on the limit after a cut trims less white space than it
	// counted.
	fitMargin = 8
	// shortenedMark ends text this package trims to fit a message when
	// no card says the reader's language; a card's text ends with the
	// card's mark (Card.CutMark).
	shortenedMark = broker.ShortenedMark
)

// view is a rendered question message.
type view struct {
	text     string
	keyboard [][]tgbotapi.InlineKeyboardButton
	// contextCut is set when the text shows less than the whole context.
	contextCut bool
}

// esc escapes text for HTML parse mode.
func esc(s string) string { return tgbotapi.EscapeText(tgbotapi.ModeHTML, s) }

// droppedButton is a button whose callback data would not fit; the text
// shows its command instead.
type droppedButton struct {
	label, command string
}

// trim shortens s to n runes, visibly.
func trim(s string, n int, mark string) string {
	if n < 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n]), " \n") + mark
}

// card is q as this channel's readers see it: in the bridge's time zone,
// now, with the other channels q went to named as copies elsewhere.
func (c *Channel) card(q *broker.Question) broker.Card {
	return broker.BuildCard(q, broker.Viewer{Now: c.now(), Loc: c.loc, Channel: Name, Locale: c.localeOf(q)})
}

// render builds the message and keyboard of a pending question from its
// card, in one pass. A text over Telegram's limit is rendered once more
// from the card shortened by the excess (Card.Shorten: the context
// first, then option descriptions, then the questions), never cut inside
// markup.
func (c *Channel) render(q *broker.Question) view {
	card := c.card(q)
	kb, dropped := c.keyboard(card)
	text := renderText(card, dropped)
	if over := visibleLen(text) - maxText; over > 0 {
		card = card.Shorten(over + fitMargin)
		text = renderText(card, dropped)
		c.log.Info("question text shortened to fit a Telegram message", "question_id", q.ID, "excess", over)
		if visibleLen(text) > maxText {
			// A guard: what Shorten may not cut (labels, headers,
			// commands) cannot fill a message within the broker's
			// limits, but if it ever does, everything it may cut goes.
			card = card.Shorten(card.Size())
			text = renderText(card, dropped)
			c.log.Warn("question text still over Telegram's limit after shortening", "question_id", q.ID, "length", visibleLen(text))
		}
	}
	return view{text: text, keyboard: kb, contextCut: card.ContextCut}
}

// renderText is the message text of a pending card.
func renderText(card broker.Card, dropped []droppedButton) string {
	var b strings.Builder
	multi := len(card.Prompts) > 1
	if card.Title != "" {
		b.WriteString("📋 <b>" + esc(card.Title) + "</b>\n")
	}
	for i, p := range card.Prompts {
		if multi {
			b.WriteString("\n")
		}
		writePrompt(&b, p, i, multi, i == card.Current)
	}
	if card.Context != "" {
		b.WriteString("\n<i>" + esc(card.Context) + "</i>\n")
	}
	b.WriteString("\n⏳ " + esc(card.StateLine()) + "\n")
	b.WriteString(hint(card))
	if len(dropped) > 0 {
		b.WriteString("\n\n" + esc(i18n.For(card.Locale).T("telegram.dropped")))
		for _, d := range dropped {
			b.WriteString("\n<code>" + esc(d.command) + "</code> (" + esc(d.label) + ")")
		}
	}
	return b.String()
}

func writePrompt(b *strings.Builder, p broker.CardPrompt, i int, multi, current bool) {
	question := esc(p.Question)
	header := ""
	if p.Header != "" {
		header = "🏷 <b>" + esc(p.Header) + "</b>"
	}
	if !multi {
		if header != "" {
			b.WriteString(header + "\n")
		}
		b.WriteString("<b>" + question + "</b>\n")
	} else {
		mark := "▫️"
		switch {
		case p.Answer != "":
			mark = "✅"
		case current:
			mark = "👉"
		}
		line := mark + " <b>" + strconv.Itoa(i+1) + ".</b> "
		if header != "" {
			line += header + " "
		}
		b.WriteString(line + question + "\n")
		if p.Answer != "" {
			b.WriteString("    → " + esc(p.Answer) + "\n")
			return
		}
	}
	if len(p.Options) > 0 && !multi {
		b.WriteString("\n")
	}
	indent := ""
	if multi {
		indent = "    "
	}
	for _, o := range p.Options {
		line := indent + strconv.Itoa(o.Number) + ". "
		if o.Recommended {
			line += "⭐ "
		}
		line += "<b>" + esc(o.Label) + "</b>"
		if o.Description != "" {
			line += " — " + esc(o.Description)
		}
		b.WriteString(line + "\n")
	}
	if p.Hint != "" {
		b.WriteString(indent + "<i>⭐ " + esc(p.Hint) + "</i>\n")
	}
	if p.Expect != "" {
		b.WriteString(indent + "<i>" + esc(p.Expect) + "</i>\n")
	}
}

// hint tells people how to answer the current prompt in Telegram, with
// the card's example of the typed command.
func hint(card broker.Card) string {
	if card.Current < 0 {
		return ""
	}
	w := i18n.For(card.Locale)
	p := card.Prompts[card.Current]
	var how string
	submit, multi := p.Control(broker.ControlSubmit)
	_, other := p.Control(broker.ControlOther)
	switch {
	case len(p.Options) == 0:
		how = w.T("telegram.how_free")
	case multi:
		how = w.T("telegram.how_multi", submit.Label)
	case other:
		how = w.T("telegram.how_options_other")
	default:
		how = w.T("telegram.how_options")
	}
	if len(card.Prompts) > 1 {
		how = w.T("telegram.now_question", card.Current+1, len(card.Prompts), how)
	}
	return esc(how) + " <code>" + esc(p.Example) + "</code>"
}

// renderOutcome is the text of a resolved copy: the questions and what
// became of them. The copy shows neither the context nor the options, so
// the card it is fitted with has none: a text over the limit sheds from
// the questions alone.
func (c *Channel) renderOutcome(q *broker.Question) string {
	card := c.card(q)
	card.Context = ""
	card.Prompts = slices.Clone(card.Prompts)
	for i := range card.Prompts {
		card.Prompts[i].Options = nil
	}
	text := outcomeText(card, true)
	if over := visibleLen(text) - maxText; over > 0 {
		text = outcomeText(card.Shorten(over+fitMargin), true)
	}
	if visibleLen(text) > maxText {
		text = outcomeText(card, false)
	}
	if visibleLen(text) > maxText {
		// A guard: the outcome line alone is over the limit.
		return outcomeIcon(card.Status) + " " + esc(trim(card.Outcome.Text, maxText/2, card.CutMark()))
	}
	return text
}

// outcomeText is the resolved copy's text, with its questions or not.
func outcomeText(card broker.Card, questions bool) string {
	var b strings.Builder
	if questions {
		for i, p := range card.Prompts {
			if i == 0 && p.Header != "" && len(card.Prompts) == 1 {
				b.WriteString("🏷 <b>" + esc(p.Header) + "</b>\n")
			}
			b.WriteString("<b>" + esc(p.Question) + "</b>\n")
		}
	}
	b.WriteString("\n" + outcomeIcon(card.Status) + " " + esc(card.Outcome.Text))
	return b.String()
}

func outcomeIcon(s broker.Status) string {
	switch s {
	case broker.StatusAnswered:
		return "✅"
	case broker.StatusDeclined:
		return "🚫"
	case broker.StatusTimedOut:
		return "⌛"
	case broker.StatusCancelled:
		return "✖️"
	}
	return "⚠️"
}

// visibleLen is the length Telegram measures: the text after HTML parsing,
// in UTF-16 code units. It understands the markup this package writes.
func visibleLen(html string) int {
	n := 0
	for i := 0; i < len(html); {
		switch html[i] {
		case '<':
			if j := strings.IndexByte(html[i:], '>'); j >= 0 {
				i += j + 1
				continue
			}
		case '&':
			if j := strings.IndexByte(html[i:], ';'); j > 0 && j <= 6 {
				n++
				i += j + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(html[i:])
		n += utf16.RuneLen(r)
		i += size
	}
	return n
}

// plainText caps text for a plain message, visibly.
func plainText(s string) string {
	if visibleLen(esc(s)) <= maxText {
		return esc(s)
	}
	return esc(trim(s, maxText/2-len(shortenedMark), shortenedMark))
}

// toast caps a callback answer at Telegram's 200 characters.
func toast(s string) string {
	if len(utf16.Encode([]rune(s))) <= maxToast {
		return s
	}
	r := []rune(s)
	for len(utf16.Encode(r)) > maxToast-1 {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
