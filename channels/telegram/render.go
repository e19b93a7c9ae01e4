package telegram

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
)

const (
	// maxText is Telegram's limit on a message's text after entity
	// parsing, in UTF-16 code units.
	maxText = 4096
	// maxCallbackData is Telegram's limit on a button's callback data.
	maxCallbackData = 64
	// maxToast is Telegram's limit on a callback answer's text.
	maxToast = 200
	// shortenedMark ends text trimmed to fit a message.
	shortenedMark = "…(shortened)"
	// contextMark ends a context trimmed to fit a message: Post replies
	// to the question with the whole of it (wholecontext.go).
	contextMark = "…(shortened: the whole text is in the reply below)"
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

// limits trims parts of the text, in runes; negative means no limit.
type limits struct {
	context, desc, question int
}

var noLimits = limits{-1, -1, -1}

// trim shortens s to n runes, visibly.
func trim(s string, n int, mark string) string {
	if n < 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n]), " \n") + mark
}

// render builds the message and keyboard of a pending question. Text that
// would exceed Telegram's limit is shortened visibly, context first, then
// option descriptions, then the questions; never inside markup.
func (c *Channel) render(q *broker.Question) view {
	cur := q.NextOpen()
	kb, dropped := c.keyboard(q, cur)
	steps := []limits{
		noLimits,
		{context: -2}, // computed from the excess below
		{context: 0, desc: 80, question: -1},
		{context: 0, desc: 0, question: -1},
		{context: 0, desc: 0, question: 500},
		{context: 0, desc: 0, question: 120},
	}
	var text string
	var used limits
	for k, lim := range steps {
		if lim.context == -2 {
			excess := visibleLen(text) - maxText
			lim = limits{context: max(utf8.RuneCountInString(q.Context)-excess-utf8.RuneCountInString(contextMark)-1, 0), desc: -1, question: -1}
		}
		text, used = renderText(q, cur, dropped, lim, c.loc), lim
		if visibleLen(text) <= maxText {
			if k > 0 {
				c.log.Info("question text shortened to fit a Telegram message", "question_id", q.ID, "step", k)
			}
			break
		}
	}
	cut := used.context >= 0 && utf8.RuneCountInString(q.Context) > used.context
	return view{text: text, keyboard: kb, contextCut: cut}
}

func renderText(q *broker.Question, cur int, dropped []droppedButton, lim limits, loc *time.Location) string {
	var b strings.Builder
	multi := len(q.Prompts) > 1
	if multi {
		fmt.Fprintf(&b, "📋 <b>%d questions</b>, answered one after the other\n", len(q.Prompts))
	}
	for i, p := range q.Prompts {
		if multi {
			b.WriteString("\n")
		}
		writePrompt(&b, q, i, p, multi, i == cur, q.Given(i), lim)
	}
	if q.Context != "" {
		b.WriteString("\n<i>" + esc(trim(q.Context, lim.context, contextMark)) + "</i>\n")
	}
	b.WriteString("\n⏳ " + esc(broker.DeadlineText(q, loc)) + "\n")
	b.WriteString(hint(q, cur))
	if len(dropped) > 0 {
		b.WriteString("\n\nSome buttons could not be shown; type instead:")
		for _, d := range dropped {
			b.WriteString("\n<code>" + esc(d.command) + "</code> (" + esc(d.label) + ")")
		}
	}
	return b.String()
}

func writePrompt(b *strings.Builder, q *broker.Question, i int, p broker.Prompt, multi, current bool, answered *broker.Answer, lim limits) {
	question := esc(trim(p.Question, lim.question, shortenedMark))
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
		case answered != nil:
			mark = "✅"
		case current:
			mark = "👉"
		}
		line := mark + " <b>" + strconv.Itoa(i+1) + ".</b> "
		if header != "" {
			line += header + " "
		}
		b.WriteString(line + question + "\n")
		if answered != nil {
			b.WriteString("    → " + esc(broker.AnswerValue(*answered)) + "\n")
			return
		}
	}
	if len(p.Options) > 0 && !multi {
		b.WriteString("\n")
	}
	for k, o := range p.Options {
		line := "    "
		if !multi {
			line = ""
		}
		line += strconv.Itoa(k+1) + ". "
		if p.Recommended(k) {
			line += "⭐ "
		}
		line += "<b>" + esc(o.Label) + "</b>"
		if d := trim(o.Description, lim.desc, "…"); d != "" {
			line += " — " + esc(d)
		}
		b.WriteString(line + "\n")
	}
	if p.Recommended(0) {
		b.WriteString(indent(multi) + "<i>⭐ " + esc(broker.RecommendedHint) + "</i>\n")
	}
	if e := broker.ExpectText(p); e != "" {
		b.WriteString(indent(multi) + "<i>" + esc(e) + "</i>\n")
	} else if p.MultiSelect && len(p.Options) > 0 {
		b.WriteString(indent(multi) + "<i>(choose one or more)</i>\n")
	}
}

func indent(multi bool) string {
	if multi {
		return "    "
	}
	return ""
}

// hint tells people how to answer the current prompt.
func hint(q *broker.Question, cur int) string {
	if cur < 0 {
		return ""
	}
	p := q.Prompts[cur]
	var how, example string
	switch {
	case len(p.Options) == 0:
		how = "Reply to this message with your answer, or type"
		example = broker.FormatAnswer(q.Ref(cur), "<your answer>")
	case p.MultiSelect:
		how = "Tap the options you want, then Done; or reply with numbers such as 1,3, or type"
		example = broker.FormatAnswer(q.Ref(cur), "1,3")
	default:
		how = "Tap a button, reply to this message with a number"
		if p.AllowsOther() {
			how += " or your own answer"
		}
		how += ", or type"
		example = broker.FormatOption(q.Ref(cur), 0)
	}
	if len(q.Prompts) > 1 {
		how = fmt.Sprintf("Now question %d of %d. %s", cur+1, len(q.Prompts), how)
	}
	return how + " <code>" + esc(example) + "</code>"
}

// renderOutcome is the text of a resolved copy: the questions and what
// became of them.
func (c *Channel) renderOutcome(q *broker.Question) string {
	outcome := outcomeIcon(q.Status) + " " + esc(broker.OutcomeText(q, c.loc))
	for _, n := range []int{-1, 500, 120, 0} {
		var b strings.Builder
		for i, p := range q.Prompts {
			if n == 0 {
				break
			}
			if i == 0 && p.Header != "" && len(q.Prompts) == 1 {
				b.WriteString("🏷 <b>" + esc(p.Header) + "</b>\n")
			}
			b.WriteString("<b>" + esc(trim(p.Question, n, shortenedMark)) + "</b>\n")
		}
		text := b.String() + "\n" + outcome
		if visibleLen(text) <= maxText {
			return text
		}
	}
	return esc(trim(broker.OutcomeText(q, c.loc), maxText/2, shortenedMark))
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
