package slack

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
)

// mrkdwn returns a mrkdwn text object for text that is already escaped.
// verbatim stops Slack from turning bare URLs and #channel names into links.
func mrkdwn(escaped string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.MarkdownType, escaped, false, true)
}

// plain returns a plain_text object; plain text never mentions or links.
func plain(s string, n int) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.PlainTextType, limit(s, n), false, false)
}

func section(blockID, escaped string) *slackapi.SectionBlock {
	return slackapi.NewSectionBlock(mrkdwn(escaped), nil, nil, slackapi.SectionBlockOptionBlockID(blockID))
}

func contextLine(blockID, escaped string) *slackapi.ContextBlock {
	return slackapi.NewContextBlock(blockID, mrkdwn(escaped))
}

func blockID(q *broker.Question, parts ...any) string {
	s := "ask." + q.ID
	for _, p := range parts {
		s += "." + fmt.Sprint(p)
	}
	return s
}

// questionBlocks renders a pending question with its buttons. Prompts of a
// dialog that already have an answer show it instead of buttons.
func questionBlocks(q *broker.Question, loc *time.Location) []slackapi.Block {
	var blocks []slackapi.Block
	for i, p := range q.Prompts {
		blocks = append(blocks, promptHead(q, i)...)
		if len(p.Options) > 0 {
			blocks = append(blocks, section(blockID(q, i, "options"), optionList(p)))
		}
		if a := q.Given(i); a != nil {
			blocks = append(blocks, contextLine(blockID(q, i, "done"), "Answered: "+escapeLimit(broker.AnswerValue(*a), maxContextText-10)))
			continue
		}
		if e := broker.ExpectText(p); e != "" {
			blocks = append(blocks, contextLine(blockID(q, i, "expect"), "_"+escapeLimit(e, maxContextText-2)+"_"))
		}
		blocks = append(blocks, promptActions(q, i))
	}
	blocks = append(blocks, footer(q, loc)...)
	blocks = append(blocks, slackapi.NewActionBlock(blockID(q, "end"), endActions(q)...))
	return clampBlocks(blocks)
}

// outcomeBlocks renders a resolved question: the prompts, the outcome, no
// buttons.
func outcomeBlocks(q *broker.Question, loc *time.Location) []slackapi.Block {
	var blocks []slackapi.Block
	for i := range q.Prompts {
		blocks = append(blocks, promptHead(q, i)...)
	}
	blocks = append(blocks,
		section("done."+q.ID+".outcome", "*"+escapeLimit(broker.OutcomeText(q, loc), maxSectionText-2)+"*"),
		contextLine("done."+q.ID+".id", "Question "+escapeMrkdwn(q.ID)))
	return clampBlocks(blocks)
}

// promptHead is the header chip (and the prompt's place in a dialog)
// followed by the question.
func promptHead(q *broker.Question, i int) []slackapi.Block {
	p := q.Prompts[i]
	var chips []string
	if p.Header != "" {
		chips = append(chips, "*"+escapeMrkdwn(p.Header)+"*")
	}
	if len(q.Prompts) > 1 {
		chips = append(chips, fmt.Sprintf("Question %d of %d", i+1, len(q.Prompts)))
	}
	var out []slackapi.Block
	if len(chips) > 0 {
		out = append(out, contextLine(blockID(q, i, "chip"), strings.Join(chips, "  ·  ")))
	}
	return append(out, section(blockID(q, i, "question"), escapeLimit(p.Question, maxSectionText)))
}

// optionList numbers the options with their descriptions, so that typed
// answers ("2") are obvious, and says what the recommended mark means.
func optionList(p broker.Prompt) string {
	var lines []string
	for k, o := range p.Options {
		line := fmt.Sprintf("*%d.* %s", k+1, escapeMrkdwn(o.Label))
		if o.Description != "" {
			line += " — " + escapeMrkdwn(o.Description)
		}
		lines = append(lines, line)
	}
	s := strings.Join(lines, "\n")
	hint := ""
	if p.Recommended(0) {
		hint = "\n_" + escapeMrkdwn(broker.RecommendedHint) + "_"
	}
	if len([]rune(s))+len([]rune(hint)) > maxSectionText {
		s = string([]rune(s)[:maxSectionText-1-len([]rune(hint))]) + "…"
	}
	return s + hint
}

// promptActions is the actions block of prompt i: option buttons (or
// checkboxes and Submit), Other or note…, Skip.
func promptActions(q *broker.Question, i int) *slackapi.ActionBlock {
	p := q.Prompts[i]
	var elems []slackapi.BlockElement
	if p.MultiSelect && len(p.Options) > 0 {
		opts := make([]*slackapi.OptionBlockObject, len(p.Options))
		for k, o := range p.Options {
			var desc *slackapi.TextBlockObject
			if o.Description != "" {
				desc = plain(o.Description, maxOptionDesc)
			}
			opts[k] = slackapi.NewOptionBlockObject(strconv.Itoa(k), plain(o.Label, maxOptionText), desc)
		}
		// Options ticked on another platform (Telegram's toggles) show
		// ticked here too: every copy shows the question's selection.
		boxes := slackapi.NewCheckboxGroupsBlockElement(actionPick, opts...)
		for _, k := range broker.SelectedOptions(q.Selections[i]) {
			if k >= 0 && k < len(opts) {
				boxes.InitialOptions = append(boxes.InitialOptions, opts[k])
			}
		}
		elems = append(elems,
			boxes,
			slackapi.NewButtonBlockElement(actionSubmit, newRef(q, i).encode(), plain("Submit", maxButtonText)).WithStyle(slackapi.StylePrimary))
	} else {
		for k, o := range p.Options {
			b := slackapi.NewButtonBlockElement(actionOptionPrefix+strconv.Itoa(k), limit(broker.FormatOption(q.Ref(i), k), maxButtonValue), plain(o.Label, maxButtonText))
			if p.Recommended(k) {
				b = b.WithStyle(slackapi.StylePrimary)
			}
			elems = append(elems, b)
		}
	}
	if p.AllowsOther() {
		// The modal takes the Other answer, or a note beside options
		// picked in it.
		label := "Other or note…"
		if len(p.Options) == 0 {
			label = "Answer…"
		}
		elems = append(elems, slackapi.NewButtonBlockElement(actionOther, newRef(q, i).encodeWithin(maxButtonValue), plain(label, maxButtonText)))
	}
	elems = append(elems, slackapi.NewButtonBlockElement(actionSkip, broker.FormatSkip(q.Ref(i)), plain("Skip", maxButtonText)))
	if len(elems) > maxActionsElems {
		elems = elems[:maxActionsElems]
	}
	return slackapi.NewActionBlock(blockID(q, i, "actions"), elems...)
}

// footer is the context of the question and its deadline and default.
func footer(q *broker.Question, loc *time.Location) []slackapi.Block {
	var out []slackapi.Block
	if q.Context != "" {
		out = append(out, contextLine(blockID(q, "context"), contextText(q.Context)))
	}
	line := escapeMrkdwn(broker.DeadlineText(q, loc)) + "  ·  question " + escapeMrkdwn(q.ID)
	return append(out, contextLine(blockID(q, "deadline"), line))
}

// fallbackText is the message's plain text: what notifications and
// clients without blocks show, including the typed commands.
func fallbackText(q *broker.Question, loc *time.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Question %s", q.ID)
	for i, p := range q.Prompts {
		b.WriteString("\n")
		if p.Header != "" {
			b.WriteString("[" + p.Header + "] ")
		}
		b.WriteString(limit(p.Question, 300))
		for k, o := range p.Options {
			fmt.Fprintf(&b, "\n  %d. %s", k+1, o.Label)
		}
		ex := broker.FormatOption(q.Ref(i), 0)
		if len(p.Options) == 0 {
			ex = broker.FormatOther(q.Ref(i), "<text>")
		} else if p.AllowsOther() {
			ex += "  or  " + broker.FormatOther(q.Ref(i), "<text>") + "  or, with a note,  " + broker.FormatOptionsOther(q.Ref(i), []int{0}, "<note>")
		}
		b.WriteString("\n  Reply: " + ex)
	}
	b.WriteString("\nNot ready: " + broker.FormatDiscuss(q.ID, "[message]"))
	b.WriteString("\nDecline: " + broker.FormatDecline(q.ID, "[reason]"))
	b.WriteString("\n" + broker.DeadlineText(q, loc))
	return escapeLimit(b.String(), maxFallbackText)
}

// clampBlocks keeps a message within Slack's 50 blocks, keeping the last
// block (the Decline or outcome line) in place.
func clampBlocks(blocks []slackapi.Block) []slackapi.Block {
	if len(blocks) <= maxBlocks {
		return blocks
	}
	out := append([]slackapi.Block(nil), blocks[:maxBlocks-1]...)
	return append(out, blocks[len(blocks)-1])
}
