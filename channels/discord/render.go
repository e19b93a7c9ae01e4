package discord

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
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

// limits bound the agent's texts so that the content fits in one message;
// render tries them in order until the content fits.
type limits struct{ question, desc, context int }

var limitSteps = []limits{
	{broker.MaxQuestionChars, broker.MaxDescriptionChar, broker.MaxContextChars},
	{broker.MaxQuestionChars, broker.MaxDescriptionChar, 500},
	{1000, 100, 200},
	{400, 50, 0},
	{150, 0, 0},
}

// noMentions lets a message ping nobody: no parse types, no ids, and no
// ping of the author of a replied-to message.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// render returns the message for q as it stands: the question with its
// buttons while pending, the outcome without components once resolved.
func render(q *broker.Question, loc *time.Location) message {
	if q.Status.Terminal() {
		content, _, _ := fit(func(l limits) string { return outcomeContent(q, loc, l) })
		return message{Content: content, Components: []discordgo.MessageComponent{}}
	}
	comps, typed := components(q)
	content, l, cut := fit(func(l limits) string { return pendingContent(q, loc, l, typed) })
	return message{
		Content:    content,
		Components: comps,
		ContextCut: q.Context != "" && (cut || utf8.RuneCountInString(q.Context) > l.context),
	}
}

// fit renders with ever tighter limits until the content fits Discord's
// 2000 characters, and cuts as a last resort (cut). It returns the limits
// the content was rendered with.
func fit(build func(limits) string) (content string, l limits, cut bool) {
	var s string
	for _, l = range limitSteps {
		if s = build(l); units(s) <= maxContent {
			return s, l, false
		}
	}
	return cutUnits(s, maxContent), l, true
}

func promptTitle(q *broker.Question, i int, l limits) string {
	p := q.Prompts[i]
	var b strings.Builder
	if len(q.Prompts) > 1 {
		fmt.Fprintf(&b, "**%d.** ", i+1)
	}
	if p.Header != "" {
		b.WriteString("**[" + escape(p.Header) + "]** ")
	}
	b.WriteString("**" + escape(truncate(p.Question, l.question)) + "**")
	return b.String()
}

func pendingContent(q *broker.Question, loc *time.Location, l limits, typed []string) string {
	var b strings.Builder
	for i, p := range q.Prompts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(promptTitle(q, i, l) + "\n")
		if a := q.Given(i); a != nil {
			b.WriteString("✓ " + escape(broker.AnswerValue(*a)) + "\n")
			continue
		}
		for k, o := range p.Options {
			fmt.Fprintf(&b, "`%d.` %s", k+1, escape(o.Label))
			if d := truncate(o.Description, l.desc); d != "" {
				b.WriteString(" — " + escape(d))
			}
			b.WriteString("\n")
		}
		if p.Recommended(0) {
			b.WriteString("_" + escape(broker.RecommendedHint) + "_\n")
		}
		switch {
		case broker.ExpectText(p) != "":
			b.WriteString("_" + escape(broker.ExpectText(p)) + "._\n")
		case p.MultiSelect && len(p.Options) > 0 && p.AllowsOther():
			b.WriteString("_Choose one or more; you can add a note after choosing._\n")
		case p.MultiSelect && len(p.Options) > 0:
			b.WriteString("_Choose one or more._\n")
		case len(p.Options) == 0:
			b.WriteString("_Answer in your own words._\n")
		}
	}
	if c := contextExcerpt(q.Context, l.context); c != "" {
		b.WriteString("\n")
		for _, line := range strings.Split(c, "\n") {
			b.WriteString("> " + escape(line) + "\n")
		}
	}
	b.WriteString("\n" + escape(broker.DeadlineText(q, loc)) + "\n")
	if len(typed) > 0 {
		b.WriteString("Type instead: " + strings.Join(typed, " · ") + "\n")
	}
	if next := q.NextOpen(); next >= 0 {
		fmt.Fprintf(&b, "Tap a button, reply to this message with a number or your own words, or type `%s`", codeSafe(broker.FormatOption(q.Ref(next), 0)))
	}
	return b.String()
}

func outcomeContent(q *broker.Question, loc *time.Location, l limits) string {
	var b strings.Builder
	for i := range q.Prompts {
		b.WriteString(promptTitle(q, i, l) + "\n")
	}
	b.WriteString("\n" + escape(broker.OutcomeText(q, loc)))
	return b.String()
}

// components builds the action rows of a pending question. A component
// whose custom_id would break Discord's rules (over 100 characters, or not
// unique in the message) is left out, and the command it would have
// carried is returned in typed, to be shown in the content instead.
func components(q *broker.Question) (rows []discordgo.MessageComponent, typed []string) {
	rows = []discordgo.MessageComponent{}
	seen := map[string]bool{}
	usable := func(customID string) bool {
		if utf8.RuneCountInString(customID) > maxCustomID || seen[customID] {
			return false
		}
		seen[customID] = true
		return true
	}
	for i, p := range q.Prompts {
		if q.Given(i) != nil {
			continue
		}
		var prompt []discordgo.MessageComponent
		var buttons []discordgo.MessageComponent
		if p.MultiSelect && len(p.Options) > 0 {
			if menu := selectMenu(q, i); usable(menu.CustomID) {
				prompt = append(prompt, discordgo.ActionsRow{Components: []discordgo.MessageComponent{menu}})
			} else {
				typed = append(typed, "`"+codeSafe(broker.FormatAnswer(q.Ref(i), "1,2"))+"`")
			}
		} else {
			for k, o := range p.Options {
				cmd := broker.FormatOption(q.Ref(i), k)
				if !usable(cmd) {
					typed = append(typed, "`"+codeSafe(cmd)+"` "+escape(o.Label))
					continue
				}
				style := discordgo.SecondaryButton
				if p.Recommended(k) {
					style = discordgo.PrimaryButton
				}
				buttons = append(buttons, discordgo.Button{
					Label: truncate(fmt.Sprintf("%d. %s", k+1, o.Label), maxButtonLabel), Style: style, CustomID: cmd,
				})
			}
		}
		if p.AllowsOther() {
			// With options the modal also takes the numbers the text
			// goes with, which makes it a note beside them.
			label, kind := "Other or note…", kindOtherNote
			if len(p.Options) == 0 {
				label, kind = "Answer…", kindOther
			}
			if id := slotID(kind, q, i); usable(id) {
				buttons = append(buttons, discordgo.Button{Label: label, Style: discordgo.SecondaryButton, CustomID: id})
			} else {
				typed = append(typed, "`"+codeSafe(broker.FormatOther(q.Ref(i), "<your answer>"))+"`")
			}
		}
		if cmd := broker.FormatSkip(q.Ref(i)); usable(cmd) {
			buttons = append(buttons, discordgo.Button{Label: "Skip", Style: discordgo.SecondaryButton, CustomID: cmd})
		} else {
			typed = append(typed, "`"+codeSafe(cmd)+"`")
		}
		for len(buttons) > 0 {
			n := min(len(buttons), maxButtonsPerRow)
			prompt = append(prompt, discordgo.ActionsRow{Components: buttons[:n]})
			buttons = buttons[n:]
		}
		// One row stays free for Decline; a prompt that does not fit is
		// answered by typing (its command is in the content's hint).
		if len(rows)+len(prompt) > maxRows-1 {
			typed = append(typed, "`"+codeSafe(broker.FormatOption(q.Ref(i), 0))+"`")
			continue
		}
		rows = append(rows, prompt...)
	}
	var last []discordgo.MessageComponent
	if cmd := broker.FormatDiscuss(q.ID, ""); usable(cmd) {
		last = append(last, discordgo.Button{Label: "Not ready", Style: discordgo.SecondaryButton, CustomID: cmd})
	} else {
		typed = append(typed, "`"+codeSafe(cmd)+"`")
	}
	if cmd := broker.FormatDecline(q.ID, ""); usable(cmd) {
		last = append(last, discordgo.Button{Label: "Decline", Style: discordgo.DangerButton, CustomID: cmd})
	} else {
		typed = append(typed, "`"+codeSafe(cmd)+"`")
	}
	if cmd := broker.FormatSnooze(q); cmd != "" && usable(cmd) {
		last = append(last, discordgo.Button{Label: "Snooze", Style: discordgo.SecondaryButton, CustomID: cmd})
	}
	if len(last) > 0 {
		rows = append(rows, discordgo.ActionsRow{Components: last})
	}
	return rows, typed
}

func selectMenu(q *broker.Question, i int) discordgo.SelectMenu {
	p := q.Prompts[i]
	chosen := map[int]bool{}
	for _, k := range q.Selections[i] {
		chosen[k] = true
	}
	opts := make([]discordgo.SelectMenuOption, len(p.Options))
	for k, o := range p.Options {
		opts[k] = discordgo.SelectMenuOption{
			Label:       truncate(fmt.Sprintf("%d. %s", k+1, o.Label), maxSelectText),
			Value:       fmt.Sprint(k),
			Description: truncate(o.Description, maxSelectText),
			Default:     chosen[k],
		}
	}
	one := 1
	kind := kindSelect
	if p.AllowsOther() {
		kind = kindSelectNote // the choice is followed by a note modal
	}
	return discordgo.SelectMenu{
		MenuType:    discordgo.StringSelectMenu,
		CustomID:    slotID(kind, q, i),
		Placeholder: "Choose one or more",
		MinValues:   &one,
		MaxValues:   len(p.Options),
		Options:     opts,
	}
}
