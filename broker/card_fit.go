package broker

import (
	"strings"
	"unicode/utf8"

	"github.com/askbridge/askbridge/internal/i18n"
)

// The marks that end a text Shorten cut, so people see that it was cut.
const (
	// ContextCutMark ends a shortened context in English: channels that
	// cut it post the whole text in a reply to the question. A card ends
	// it in its own language (Card.ContextMark).
	ContextCutMark = "…(shortened: the whole text is in the reply below)"
	// ShortenedMark ends a shortened question in English; a card ends it
	// in its own language (Card.CutMark).
	ShortenedMark = "…(shortened)"
	// descCutMark ends a shortened option description.
	descCutMark = "…"
)

// The steps Shorten takes, in order, after the context: descriptions to
// descShort then to nothing, questions to questionShort then questionShortest.
const (
	descShort        = 80
	questionShort    = 500
	questionShortest = 120
)

// CutMark is the mark that ends a shortened question of c, in the card's
// language: "…(shortened)", German "…(Text gekürzt)". Shorten counts its
// length in that language, so a longer mark still fits.
func (c Card) CutMark() string { return i18n.For(c.Locale).T("text.shortened") }

// ContextMark is the mark that ends a shortened context of c, in the
// card's language: "…(shortened: the whole text is in the reply below)".
func (c Card) ContextMark() string { return i18n.For(c.Locale).T("text.context_shortened") }

// Size is how many characters of c Shorten can take away: those of the
// context, the option descriptions and the questions.
func (c Card) Size() int {
	n := utf8.RuneCountInString(c.Context)
	for _, p := range c.Prompts {
		n += utf8.RuneCountInString(p.Question)
		for _, o := range p.Options {
			n += utf8.RuneCountInString(o.Description)
		}
	}
	return n
}

// Shorten returns c with about excess characters fewer, so that a channel
// that rendered c once and found it excess characters over its platform's
// limit renders it once more and fits. What goes first is fixed: the
// context, down to nothing but its mark (ContextCut is then set and the
// channel posts the whole context in a reply); then every option's
// description, to 80 characters and then to nothing; then the questions,
// to 500 and then 120 characters. The agent's labels, the chips and the
// commands are never cut. Each cut is visible; c itself is unchanged.
func (c Card) Shorten(excess int) Card {
	if excess <= 0 {
		return c
	}
	out := c
	out.Prompts = make([]CardPrompt, len(c.Prompts))
	for i, p := range c.Prompts {
		p.Options = append([]CardOption(nil), p.Options...)
		out.Prompts[i] = p
	}
	if n := utf8.RuneCountInString(out.Context); n > 0 && !out.ContextCut {
		cmark := c.ContextMark()
		keep := max(n-excess-utf8.RuneCountInString(cmark), 0)
		if keep < n {
			out.Context = cut(out.Context, keep, cmark)
			out.ContextCut = true
			excess -= n - utf8.RuneCountInString(out.Context)
		}
	}
	for _, step := range []int{descShort, 0} {
		if excess <= 0 {
			return out
		}
		for i := range out.Prompts {
			for k := range out.Prompts[i].Options {
				o := &out.Prompts[i].Options[k]
				before := utf8.RuneCountInString(o.Description)
				if before <= step {
					continue
				}
				if step == 0 {
					o.Description = ""
				} else {
					o.Description = cut(o.Description, step-1, descCutMark)
				}
				excess -= before - utf8.RuneCountInString(o.Description)
			}
		}
	}
	mark := c.CutMark()
	for _, step := range []int{questionShort, questionShortest} {
		if excess <= 0 {
			return out
		}
		for i := range out.Prompts {
			p := &out.Prompts[i]
			before := utf8.RuneCountInString(p.Question)
			if before <= step+utf8.RuneCountInString(mark) {
				// Cut to step with the mark, it would be no shorter.
				continue
			}
			p.Question = cut(p.Question, step, mark)
			excess -= before - utf8.RuneCountInString(p.Question)
		}
	}
	return out
}

// cut shortens s, which is longer than n runes, to n runes and adds
// mark.
func cut(s string, n int, mark string) string {
	if n <= 0 {
		return mark
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return strings.TrimRight(s[:i], " \n") + mark
}
