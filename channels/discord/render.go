package discord

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/bwmarrin/discordgo"
)

// message is a rendered question: the content and the components of one
// Discord message. Components is never nil, so an edit that sends it
// removes components that are no longer wanted.
type message struct {
	Content    string
	Components []discordgo.MessageComponent
	// ContextCut is set when Content shows less than the whole context.
	ContextCut bool
}

// escapeMargin is added to the excess handed to Card.Shorten: Shorten
// counts plain characters, and the marks it ends a cut with carry
// characters that escaping doubles ("(" becomes "\(").
const escapeMargin = 16

// noMentions lets a message ping nobody: no parse types, no ids, and no
// ping of the author of a replied-to message.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// view is how the channel reads a card: now, in its time zone, as the
// Discord copy.
func (c *Channel) view(q *broker.Question) broker.Viewer {
	return broker.Viewer{Now: c.now(), Loc: c.loc, Channel: Name, Locale: c.localeOf(q)}
}

// render returns the message for q as v sees it: the question with its
// components while pending, the outcome without components once
// resolved. It builds q's card once and maps it; content over Discord's
// 2000 characters is rendered once more from the card shortened by the
// excess (Card.Shorten), and cut as a last resort.
func render(q *broker.Question, v broker.Viewer) message {
	card := visible(broker.BuildCard(q, v))
	if card.Outcome != nil {
		content, _ := fit(card, outcomeContent)
		return message{Content: content, Components: []discordgo.MessageComponent{}}
	}
	comps, typed := components(card)
	content, drawn := fit(card, func(c broker.Card) string { return pendingContent(c, typed) })
	return message{Content: content, Components: comps, ContextCut: drawn.ContextCut}
}

// visible leaves out of card what the content does not show, so that what
// Shorten takes away is taken from text people would see: the context
// and the option descriptions of a resolved question, and the
// descriptions of a dialog's prompts already answered.
func visible(card broker.Card) broker.Card {
	card.Prompts = append([]broker.CardPrompt(nil), card.Prompts...)
	if card.Outcome != nil {
		card.Context, card.ContextCut = "", false
	}
	for i, p := range card.Prompts {
		if card.Outcome != nil || p.Answer != "" {
			p.Options = append([]broker.CardOption(nil), p.Options...)
			for k := range p.Options {
				p.Options[k].Description = ""
			}
			card.Prompts[i] = p
		}
	}
	return card
}

// fit draws card, and when the content is over Discord's limit draws it
// once more from the card shortened by the excess. A content still over
// the limit is cut, as a last resort: the shortened card of any question
// the broker accepts fits, and only an outcome whose answers are long
// free text, which Shorten leaves whole, can need it. It returns the card
// the content was drawn from, whose ContextCut also says when the cut
// took a context.
func fit(card broker.Card, draw func(broker.Card) string) (string, broker.Card) {
	s := draw(card)
	excess := units(s) - maxContent
	if excess <= 0 {
		return s, card
	}
	card = card.Shorten(excess + escapeMargin)
	if s = draw(card); units(s) > maxContent {
		s = cutUnits(s, maxContent)
		card.ContextCut = card.ContextCut || card.Context != ""
	}
	return s, card
}

// promptTitle is the bold first line of prompt i: its number in a
// dialog, its header and its question.
func promptTitle(card broker.Card, i int) string {
	p := card.Prompts[i]
	var b strings.Builder
	if len(card.Prompts) > 1 {
		fmt.Fprintf(&b, "**%d.** ", i+1)
	}
	if p.Header != "" {
		b.WriteString("**[" + escape(p.Header) + "]** ")
	}
	b.WriteString("**" + escape(p.Question) + "**")
	return b.String()
}

// optionLabel is an option as people read it: its label, with the
// recommended mark the agent gave it.
func optionLabel(o broker.CardOption) string {
	if o.Recommended {
		return o.Label + broker.RecommendedSuffix
	}
	return o.Label
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

func pendingContent(card broker.Card, typed []string) string {
	w := i18n.For(card.Locale)
	var b strings.Builder
	if card.Title != "" {
		b.WriteString("📋 **" + escape(card.Title) + "**")
		if card.Progress != "" {
			b.WriteString(" · " + escape(card.Progress))
		}
		b.WriteString("\n\n")
	}
	for i, p := range card.Prompts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(promptTitle(card, i) + "\n")
		if p.Answer != "" {
			b.WriteString("✓ " + escape(p.Answer) + "\n")
			continue
		}
		for _, o := range p.Options {
			fmt.Fprintf(&b, "`%d.` %s", o.Number, escape(optionLabel(o)))
			if o.Description != "" {
				b.WriteString(" — " + escape(o.Description))
			}
			b.WriteString("\n")
		}
		if p.Hint != "" {
			b.WriteString("_" + escape(p.Hint) + "_\n")
		}
		if p.Expect != "" {
			b.WriteString("_" + escape(sentence(p.Expect)) + "_\n")
		}
	}
	if card.Context != "" {
		b.WriteString("\n")
		for _, line := range strings.Split(card.Context, "\n") {
			b.WriteString("> " + escape(line) + "\n")
		}
	}
	b.WriteString("\n" + escape(card.StateLine()) + "\n")
	if len(typed) > 0 {
		b.WriteString(w.T("discord.type_instead", strings.Join(typed, " · ")) + "\n")
	}
	if card.Current >= 0 {
		b.WriteString(w.T("discord.how", "`"+codeSafe(card.Prompts[card.Current].Example)+"`"))
	}
	return b.String()
}

func outcomeContent(card broker.Card) string {
	var b strings.Builder
	for i := range card.Prompts {
		b.WriteString(promptTitle(card, i) + "\n")
	}
	b.WriteString("\n" + escape(card.Outcome.Text))
	return b.String()
}

// code is a command shown in a code span.
func code(cmd string) string { return "`" + codeSafe(cmd) + "`" }

// components maps the card's options and controls to action rows: an
// option button per option (a select menu for a multi-select prompt),
// the prompt's Other and Skip, and a last row with Not ready, Decline
// and Snooze. Every custom id is a step's data (customid.go). A component
// whose custom id would break Discord's rules (over 100 characters, or
// not unique in the message) is left out, and the command it would have
// sent is returned in typed, to be shown in the content instead.
func components(card broker.Card) (rows []discordgo.MessageComponent, typed []string) {
	w := i18n.For(card.Locale)
	rows = []discordgo.MessageComponent{}
	seen := map[string]bool{}
	usable := func(customID string) bool {
		if utf8.RuneCountInString(customID) > maxCustomID || seen[customID] {
			return false
		}
		seen[customID] = true
		return true
	}
	for _, p := range card.Prompts {
		if !p.Open {
			continue
		}
		var prompt []discordgo.MessageComponent
		var buttons []discordgo.MessageComponent
		if p.MultiSelect && len(p.Options) > 0 {
			if menu := selectMenu(w, p); usable(menu.CustomID) {
				prompt = append(prompt, discordgo.ActionsRow{Components: []discordgo.MessageComponent{menu}})
			} else {
				typed = append(typed, code(p.Example))
			}
		} else {
			for _, o := range p.Options {
				if !usable(o.Data) {
					typed = append(typed, code(o.Command)+" "+escape(optionLabel(o)))
					continue
				}
				style := discordgo.SecondaryButton
				if o.Recommended {
					style = discordgo.PrimaryButton
				}
				buttons = append(buttons, discordgo.Button{
					Label: truncate(fmt.Sprintf("%d. %s", o.Number, optionLabel(o)), maxButtonLabel), Style: style, CustomID: o.Data,
				})
			}
		}
		if other, ok := p.Control(broker.ControlOther); ok {
			if id := otherData(p, other); usable(id) {
				buttons = append(buttons, discordgo.Button{Label: other.Label, Style: discordgo.SecondaryButton, CustomID: id})
			} else {
				typed = append(typed, code(other.Command+" "+w.T("example.your_answer")))
			}
		}
		if skip, ok := p.Control(broker.ControlSkip); ok {
			if usable(skip.Data) {
				buttons = append(buttons, discordgo.Button{Label: skip.Label, Style: discordgo.SecondaryButton, CustomID: skip.Data})
			} else {
				typed = append(typed, code(skip.Command))
			}
		}
		for len(buttons) > 0 {
			n := min(len(buttons), maxButtonsPerRow)
			prompt = append(prompt, discordgo.ActionsRow{Components: buttons[:n]})
			buttons = buttons[n:]
		}
		// One row stays free for Decline; a prompt that does not fit is
		// answered by typing (its command is in the content's hint).
		if len(rows)+len(prompt) > maxRows-1 {
			typed = append(typed, code(p.Example))
			continue
		}
		rows = append(rows, prompt...)
	}
	var last []discordgo.MessageComponent
	for _, ctl := range card.Controls {
		if !usable(ctl.Data) {
			if ctl.Kind != broker.ControlSnooze {
				typed = append(typed, code(ctl.Command))
			}
			continue
		}
		style := discordgo.SecondaryButton
		if ctl.Kind == broker.ControlDecline {
			style = discordgo.DangerButton
		}
		last = append(last, discordgo.Button{Label: ctl.Label, Style: style, CustomID: ctl.Data})
	}
	if len(last) > 0 {
		rows = append(rows, discordgo.ActionsRow{Components: last})
	}
	return rows, typed
}

// selectMenu is a multi-select prompt's menu: its options are the
// prompt's, ticked as the card shows them, and its value is an option's
// 0-based index.
func selectMenu(w *i18n.Printer, p broker.CardPrompt) discordgo.SelectMenu {
	opts := make([]discordgo.SelectMenuOption, len(p.Options))
	for k, o := range p.Options {
		opts[k] = discordgo.SelectMenuOption{
			Label:       truncate(fmt.Sprintf("%d. %s", o.Number, optionLabel(o)), maxSelectText),
			Value:       fmt.Sprint(o.Number - 1),
			Description: truncate(o.Description, maxSelectText),
			Default:     o.Selected,
		}
	}
	one := 1
	return discordgo.SelectMenu{
		MenuType:    discordgo.StringSelectMenu,
		CustomID:    menuData(p),
		Placeholder: w.T("discord.choose"),
		MinValues:   &one,
		MaxValues:   len(p.Options),
		Options:     opts,
	}
}
