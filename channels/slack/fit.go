package slack

import (
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
)

// Slack limits each text block of a message to 3,000 characters (its
// escaped mrkdwn). A card is rendered once; when a block whose text the
// card can shorten is over, the card is shortened once (Card.Shorten, in
// the card's order: the context first, then option descriptions, then
// questions) and rendered again. A text still over after that (an answer
// or an outcome, which the card never cuts, or agent text that escaping
// made much longer) is cut with "…" where it ends, as a guard; so are the
// blocks past Slack's 50.

// fitMargin is the few characters Shorten is asked for beyond the
// excess, to spare a block that rounding in a cut would leave one over.
const fitMargin = 8

// textKind says what shortening the card does for a text over its
// block's limit.
type textKind int

const (
	// fixed texts are never cut by the card: chips, answers, outcomes.
	fixed textKind = iota
	// contextText is the context, which the card cuts first.
	contextText
	// shortenable texts (questions, option lists) are cut after the
	// whole context.
	shortenable
)

// layout is a message's blocks as one render made them, with how many
// characters Shorten is to take from their texts for them to fit.
type layout struct {
	blocks []slackapi.Block
	// contextOver is what the context is to lose; over is what the
	// questions and option lists are to lose, together.
	contextOver, over int
	// contextMark is how long the mark ending a cut context is, in the
	// card's language (Card.ContextMark).
	contextMark int
}

// fitted renders card, and renders it once more shortened when a block
// was over its limit; it returns the card as rendered.
func fitted(card broker.Card, render func(broker.Card) *layout) (broker.Card, *layout) {
	l := render(card)
	if n := l.excess(card); n > 0 {
		card = card.Shorten(n + fitMargin)
		l = render(card)
	}
	return card, l
}

// excess is how many characters Shorten is to take from card, in its
// order, for every block to fit: what the context is to lose when only
// the context block is over; when a question or an option list is over,
// the whole context (which goes first) and then what they are to lose.
func (l *layout) excess(card broker.Card) int {
	if l.over > 0 {
		return utf8.RuneCountInString(card.Context) + l.over
	}
	return l.contextOver
}

func (l *layout) add(b slackapi.Block) { l.blocks = append(l.blocks, b) }

// text notes what the card is to lose for escaped, the text of a block
// of at most n characters, to fit, and returns it cut to n (the guard).
// Shorten counts the characters of raw, the text before escaping: a
// context or a question gives raw, and loses the characters that leave
// its escaped text within n (the context with Shorten's mark); an option
// list, made of several texts, gives none and loses its escaped
// overflow, which is at least what it needs.
func (l *layout) text(raw, escaped string, n int, kind textKind) string {
	over := utf8.RuneCountInString(escaped) - n
	if over <= 0 {
		return escaped
	}
	switch {
	case kind == contextText:
		mark := l.contextMark
		l.contextOver += max(rawExcess(raw, n-mark)-mark, 1)
	case kind == shortenable && raw != "":
		l.over += rawExcess(raw, n)
	case kind == shortenable:
		l.over += over
	}
	return cutEscaped(escaped, n)
}

func (l *layout) section(id, raw, escaped string, kind textKind) {
	l.add(slackapi.NewSectionBlock(mrkdwn(l.text(raw, escaped, maxSectionText, kind)), nil, nil, slackapi.SectionBlockOptionBlockID(id)))
}

func (l *layout) context(id, raw, escaped string, kind textKind) {
	l.add(slackapi.NewContextBlock(id, mrkdwn(l.text(raw, escaped, maxContextText, kind))))
}

// rawExcess is how many characters must go from the end of raw for its
// escaped text to fit in room characters.
func rawExcess(raw string, room int) int {
	used, kept := 0, 0
	for _, r := range raw {
		w := 1
		switch r {
		case '&':
			w = len("&amp;")
		case '<', '>':
			w = len("&lt;")
		}
		if used+w > room {
			break
		}
		used += w
		kept++
	}
	return utf8.RuneCountInString(raw) - kept
}

// clampBlocks keeps a message within Slack's 50 blocks, keeping the last
// block (the buttons under the question, or the outcome's line) in
// place. The largest question takes fewer; this is a guard.
func (l *layout) clampBlocks() {
	if len(l.blocks) <= maxBlocks {
		return
	}
	last := l.blocks[len(l.blocks)-1]
	l.blocks = append(l.blocks[:maxBlocks-1:maxBlocks-1], last)
}

// cutEscaped cuts escaped mrkdwn to at most n characters, ending with
// "…", never inside an entity (&amp; &lt; &gt;).
func cutEscaped(escaped string, n int) string {
	if utf8.RuneCountInString(escaped) <= n {
		return escaped
	}
	r := []rune(escaped)[:n-1]
	s := string(r)
	if i := strings.LastIndexByte(s, '&'); i >= 0 && !strings.Contains(s[i:], ";") {
		s = s[:i]
	}
	return s + "…"
}
