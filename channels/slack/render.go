package slack

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// card returns q's card as this channel's readers see it: its times in
// the channel's zone at c.now(), and the other channels q went to named
// as copies elsewhere.
func (c *Channel) card(q *broker.Question) broker.Card {
	return broker.BuildCard(q, broker.Viewer{Now: c.now(), Loc: c.loc, Channel: Name, Locale: c.localeOf(q)})
}

// message is a copy of a question as chat.postMessage and chat.update
// take it: the blocks, and the plain text that notifications and clients
// without blocks show.
type message struct {
	text   string
	blocks []slackapi.Block
}

// questionMessage maps a pending card to its message, fitted to Slack's
// limits (fit.go).
func questionMessage(card broker.Card) message {
	card, l := fitted(card, questionBlocks)
	return message{text: fallbackText(card), blocks: l.blocks}
}

// outcomeMessage maps a resolved card to its message: the prompts and the
// outcome, no buttons. The context is not shown there, so it is not what
// fitting cuts.
func outcomeMessage(card broker.Card) message {
	card.Context = ""
	card, l := fitted(card, outcomeBlocks)
	return message{text: escapeLimit(card.Outcome.Text, maxFallbackText), blocks: l.blocks}
}

// mrkdwn returns a mrkdwn text object for text that is already escaped.
// verbatim stops Slack from turning bare URLs and #channel names into links.
func mrkdwn(escaped string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.MarkdownType, escaped, false, true)
}

// plain returns a plain_text object; plain text never mentions or links.
func plain(s string, n int) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.PlainTextType, limit(s, n), false, false)
}

func blockID(id string, parts ...any) string {
	s := "ask." + id
	for _, p := range parts {
		s += "." + fmt.Sprint(p)
	}
	return s
}

// questionBlocks renders a pending card with its buttons. Prompts of a
// dialog that already have an answer show it instead of buttons.
func questionBlocks(card broker.Card) *layout {
	w := i18n.For(card.Locale)
	l := &layout{contextMark: utf8.RuneCountInString(card.ContextMark())}
	for i, p := range card.Prompts {
		l.promptHead(card, i)
		if len(p.Options) > 0 {
			l.section(blockID(card.ID, i, "options"), "", optionList(p), shortenable)
		}
		if !p.Open {
			l.context(blockID(card.ID, i, "done"), "", escapeMrkdwn(w.T("slack.answered", p.Answer)), fixed)
			continue
		}
		if p.Expect != "" {
			l.context(blockID(card.ID, i, "expect"), "", "_"+escapeMrkdwn(p.Expect)+"_", fixed)
		}
		l.add(promptActions(card.ID, i, p))
	}
	if card.Context != "" {
		l.context(blockID(card.ID, "context"), card.Context, escapeMrkdwn(card.Context), contextText)
	}
	l.context(blockID(card.ID, "deadline"), "", escapeMrkdwn(w.T("slack.state_id", card.StateLine(), card.ID)), fixed)
	var end []slackapi.BlockElement
	for _, ctl := range card.Controls {
		end = append(end, controlButton(ctl))
	}
	l.add(slackapi.NewActionBlock(blockID(card.ID, "end"), end...))
	l.clampBlocks()
	return l
}

// outcomeBlocks renders a resolved card: the prompts, the outcome, no
// buttons.
func outcomeBlocks(card broker.Card) *layout {
	l := &layout{}
	for i := range card.Prompts {
		l.promptHead(card, i)
	}
	l.section("done."+card.ID+".outcome", "", "*"+escapeMrkdwn(card.Outcome.Text)+"*", fixed)
	l.context("done."+card.ID+".id", "", escapeMrkdwn(i18n.For(card.Locale).T("slack.question_id", card.ID)), fixed)
	l.clampBlocks()
	return l
}

// promptHead is the header chip (and the prompt's place in a dialog)
// followed by the question.
func (l *layout) promptHead(card broker.Card, i int) {
	p := card.Prompts[i]
	var chips []string
	if p.Header != "" {
		chips = append(chips, "*"+escapeMrkdwn(p.Header)+"*")
	}
	if n := len(card.Prompts); n > 1 {
		chips = append(chips, escapeMrkdwn(i18n.For(card.Locale).T("slack.question_n", i+1, n)))
	}
	if len(chips) > 0 {
		l.context(blockID(card.ID, i, "chip"), "", strings.Join(chips, "  ·  "), fixed)
	}
	l.section(blockID(card.ID, i, "question"), p.Question, escapeMrkdwn(p.Question), shortenable)
}

// optionLabel is an option's label as buttons and lists show it: the
// recommended one keeps the mark the agent wrote, which the hint under
// the list explains.
func optionLabel(o broker.CardOption) string {
	if o.Recommended {
		return o.Label + broker.RecommendedSuffix
	}
	return o.Label
}

// optionList numbers the options with their descriptions, so that typed
// answers ("2") are obvious, and says what the recommended mark means.
func optionList(p broker.CardPrompt) string {
	lines := make([]string, 0, len(p.Options)+1)
	for _, o := range p.Options {
		line := fmt.Sprintf("*%d.* %s", o.Number, escapeMrkdwn(optionLabel(o)))
		if o.Description != "" {
			line += " — " + escapeMrkdwn(o.Description)
		}
		lines = append(lines, line)
	}
	if p.Hint != "" {
		lines = append(lines, "_"+escapeMrkdwn(p.Hint)+"_")
	}
	return strings.Join(lines, "\n")
}

// promptActions is the actions block of prompt i: option buttons (or
// checkboxes ticked as the question's selection stands), then the
// prompt's controls (Submit, Other or note…, Skip).
func promptActions(id string, i int, p broker.CardPrompt) *slackapi.ActionBlock {
	var elems []slackapi.BlockElement
	if p.MultiSelect && len(p.Options) > 0 {
		opts := make([]*slackapi.OptionBlockObject, len(p.Options))
		var ticked []*slackapi.OptionBlockObject
		for k, o := range p.Options {
			var desc *slackapi.TextBlockObject
			if o.Description != "" {
				desc = plain(o.Description, maxOptionDesc)
			}
			opts[k] = slackapi.NewOptionBlockObject(strconv.Itoa(o.Number-1), plain(optionLabel(o), maxOptionText), desc)
			// Options ticked on another platform (Telegram's toggles)
			// show ticked here too: every copy shows the selection.
			if o.Selected {
				ticked = append(ticked, opts[k])
			}
		}
		boxes := slackapi.NewCheckboxGroupsBlockElement(actionPick, opts...)
		boxes.InitialOptions = ticked
		elems = append(elems, boxes)
	} else {
		for _, o := range p.Options {
			b := slackapi.NewButtonBlockElement(actionOptionPrefix+strconv.Itoa(o.Number-1), o.Data, plain(optionLabel(o), maxButtonText))
			if o.Recommended {
				b = b.WithStyle(slackapi.StylePrimary)
			}
			elems = append(elems, b)
		}
	}
	for _, ctl := range p.Controls {
		elems = append(elems, controlButton(ctl))
	}
	if len(elems) > maxActionsElems {
		elems = elems[:maxActionsElems]
	}
	return slackapi.NewActionBlock(blockID(id, i, "actions"), elems...)
}

// controlButton is the button of a control: its words, its step as the
// value, and its kind as the action id; Submit is the primary button.
func controlButton(ctl broker.Control) *slackapi.ButtonBlockElement {
	b := slackapi.NewButtonBlockElement(string(ctl.Kind), ctl.Data, plain(ctl.Label, maxButtonText))
	if ctl.Kind == broker.ControlSubmit {
		b = b.WithStyle(slackapi.StylePrimary)
	}
	return b
}

// fallbackText is the message's plain text: what notifications and
// clients without blocks show, including the typed commands.
func fallbackText(card broker.Card) string {
	w := i18n.For(card.Locale)
	var b strings.Builder
	b.WriteString(w.T("slack.question_id", card.ID))
	for _, p := range card.Prompts {
		b.WriteString("\n")
		if p.Header != "" {
			b.WriteString("[" + p.Header + "] ")
		}
		b.WriteString(limit(p.Question, 300))
		for _, o := range p.Options {
			fmt.Fprintf(&b, "\n  %d. %s", o.Number, optionLabel(o))
		}
		if !p.Open {
			b.WriteString("\n  " + w.T("slack.answered", p.Answer))
			continue
		}
		reply := p.Example
		if other, ok := p.Control(broker.ControlOther); ok && len(p.Options) > 0 {
			note, _ := broker.Step{Kind: broker.StepOther, Ref: p.Ref, Options: []int{0}}.Command(w.T("slack.note"))
			reply = w.T("slack.reply_other", reply, other.Command+" "+w.T("slack.text"), note)
		}
		b.WriteString("\n  " + w.T("slack.reply", reply))
	}
	for _, ctl := range card.Controls {
		b.WriteString("\n" + ctl.Label + ": " + ctl.Command + placeholder(w, ctl))
	}
	b.WriteString("\n" + card.StateLine())
	return escapeLimit(b.String(), maxFallbackText)
}

// placeholder shows, after the command of a control that takes text,
// what the text is.
func placeholder(w *i18n.Printer, ctl broker.Control) string {
	switch {
	case !ctl.TakesText:
		return ""
	case ctl.Kind == broker.ControlDecline:
		return " " + w.T("slack.reason")
	}
	return " " + w.T("slack.message")
}
