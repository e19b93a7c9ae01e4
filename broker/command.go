package broker

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Verb is what a command does.
type Verb string

// The verbs of the command grammar.
const (
	VerbAnswer  Verb = "answer"
	VerbDecline Verb = "decline"
	VerbDiscuss Verb = "discuss"
	VerbPending Verb = "pending"
	VerbToggle  Verb = "toggle"
	VerbSnooze  Verb = "snooze"
)

// Command is a parsed text command. Every channel's buttons, typed commands
// and replies become one of these through Parse.
type Command struct {
	Verb Verb
	// ID is the question the command is for; empty only for "/pending"
	// without an id.
	ID string
	// Prompt is the 1-based prompt number of "/answer <id>.<n>" or
	// "/toggle <id>.<n>", or 0 when the command names none.
	Prompt int
	// Choice is the raw choice text of an answer ("2", "1,3", "Postgres",
	// "other some text", "skip").
	Choice string
	// Text is the reason of a decline or the message of a discuss.
	Text string
	// Option is the 1-based option of "/toggle <id>[.n] <k>".
	Option int
}

// ErrNotCommand is returned by Parse for text that is no command at all;
// channels may then treat it as a reply or as chatter.
var ErrNotCommand = fmt.Errorf("%w: not a command", ErrInvalid)

// Parse reads one command. Accepted forms: "/answer k7m2qx 2",
// "/answer@botname k7m2qx 2", "answer k7m2qx 2", "!answer k7m2qx 2",
// "/answer k7m2qx.2 1,3", "/decline k7m2qx reason", "/discuss k7m2qx
// message", "/snooze k7m2qx", "/pending", "/pending k7m2qx", "/toggle
// k7m2qx.2 3". Text that does not start with a known verb returns
// ErrNotCommand; a known verb with bad arguments returns an error that says
// what is wrong.
func Parse(text string) (Command, error) {
	s := strings.TrimSpace(text)
	word, rest := splitWord(s)
	switch {
	case strings.HasPrefix(word, "/"), strings.HasPrefix(word, "!"):
		word = word[1:]
	}
	if at := strings.IndexByte(word, '@'); at > 0 {
		word = word[:at]
	}
	verb := Verb(strings.ToLower(word))
	switch verb {
	case VerbAnswer, VerbDecline, VerbDiscuss, VerbPending, VerbToggle, VerbSnooze:
	default:
		return Command{}, ErrNotCommand
	}
	cmd := Command{Verb: verb}
	target, rest := splitWord(rest)
	if verb == VerbPending {
		return parsePending(cmd, target, rest)
	}
	if target == "" {
		return Command{}, sayError(ErrInvalid, "answer.usage_id", string(verb), string(verb), exampleTail(verb))
	}
	id, n, err := parseTarget(target)
	if err != nil {
		return Command{}, err
	}
	if n != 0 && verb != VerbAnswer && verb != VerbToggle {
		return Command{}, sayError(ErrInvalid, "answer.usage_no_prompt", string(verb))
	}
	cmd.ID, cmd.Prompt = id, n
	switch verb {
	case VerbToggle:
		return parseToggle(cmd, target, rest)
	case VerbAnswer:
		cmd.Choice = strings.TrimSpace(rest)
		if cmd.Choice == "" {
			return Command{}, sayError(ErrInvalid, "answer.usage_choice", target)
		}
	default:
		cmd.Text = strings.TrimSpace(rest)
	}
	return cmd, nil
}

// parsePending reads the rest of "/pending": nothing (the open questions
// of the chat), or one question id (that question as it stands).
func parsePending(cmd Command, target, rest string) (Command, error) {
	if target == "" {
		return cmd, nil
	}
	id, n, err := parseTarget(target)
	switch {
	case err != nil:
		return Command{}, sayError(ErrInvalid, "answer.usage_pending", target)
	case n != 0:
		return Command{}, sayError(ErrInvalid, "answer.usage_no_prompt", "pending")
	case strings.TrimSpace(rest) != "":
		return Command{}, sayError(ErrInvalid, "answer.usage_pending_more")
	}
	cmd.ID = id
	return cmd, nil
}

// parseToggle reads the option of "/toggle <id>[.n] <k>": one number.
func parseToggle(cmd Command, target, rest string) (Command, error) {
	word, more := splitWord(rest)
	if word == "" {
		return Command{}, sayError(ErrInvalid, "answer.usage_toggle", target, target)
	}
	k, err := strconv.Atoi(word)
	if err != nil || k < 1 || k > MaxOptions || strings.TrimSpace(more) != "" {
		return Command{}, sayError(ErrInvalid, "answer.usage_toggle_number", target, MaxOptions, target, strings.TrimSpace(rest))
	}
	cmd.Option = k
	return cmd, nil
}

func exampleTail(v Verb) string {
	switch v {
	case VerbAnswer, VerbToggle:
		return " 2"
	}
	return ""
}

func splitWord(s string) (string, string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// parseTarget reads "k7m2qx" or "k7m2qx.2".
func parseTarget(t string) (string, int, error) {
	id, num, hasNum := strings.Cut(strings.ToLower(t), ".")
	if !ValidID(id) {
		return "", 0, sayError(ErrInvalid, "answer.bad_id", id, idLength)
	}
	if !hasNum {
		return id, 0, nil
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > MaxPrompts {
		return "", 0, sayError(ErrInvalid, "answer.bad_prompt_number", t, MaxPrompts)
	}
	return id, n, nil
}

// ChoiceKind classifies a choice.
type ChoiceKind int

// The kinds of choice.
const (
	// ChoiceNumbers: "2", "1,3", "1 3".
	ChoiceNumbers ChoiceKind = iota
	// ChoiceText: a label or free text.
	ChoiceText
	// ChoiceOther: "other <text>".
	ChoiceOther
	// ChoiceSkip: "skip".
	ChoiceSkip
	// ChoiceNumbersOther: options and a note together, "1,3 other <text>"
	// or "2 other <text>".
	ChoiceNumbersOther
)

// OtherWord introduces free text in a choice: "other <text>" is the Other
// answer, "1,3 other <text>" picks options and adds the text as a note.
const OtherWord = "other"

// Choice is a parsed choice, still independent of any prompt.
type Choice struct {
	Kind ChoiceKind
	// Numbers are the 1-based options of ChoiceNumbers and
	// ChoiceNumbersOther.
	Numbers []int
	// Text is the label or free text of ChoiceText, the text of
	// ChoiceOther, and the note of ChoiceNumbersOther (empty when nothing
	// follows "other").
	Text string
	// Raw is the whole choice as typed, trimmed: what a prompt without
	// options takes as its free-text answer.
	Raw string
}

// ParseChoice classifies the choice text of an answer.
func ParseChoice(s string) Choice {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "skip") {
		return Choice{Kind: ChoiceSkip, Raw: s}
	}
	if w, rest := splitWord(s); strings.EqualFold(w, OtherWord) && strings.TrimSpace(rest) != "" {
		return Choice{Kind: ChoiceOther, Text: strings.TrimSpace(rest), Raw: s}
	}
	if nums, note, ok := parseNumbersOther(s); ok {
		return Choice{Kind: ChoiceNumbersOther, Numbers: nums, Text: note, Raw: s}
	}
	if nums, ok := parseNumbers(s); ok {
		return Choice{Kind: ChoiceNumbers, Numbers: nums, Raw: s}
	}
	return Choice{Kind: ChoiceText, Text: s, Raw: s}
}

// parseNumbersOther reads "1,3 other <text>": numbers, then the word
// "other", then the note (which may be empty, for Interpret to refuse).
func parseNumbersOther(s string) ([]int, string, bool) {
	rest := s
	for {
		w, after := splitWord(rest)
		switch {
		case w == "":
			return nil, "", false
		case strings.EqualFold(w, OtherWord):
			nums, ok := parseNumbers(s[:len(s)-len(rest)])
			if !ok {
				return nil, "", false
			}
			return nums, strings.TrimSpace(after), true
		case strings.Trim(w, "0123456789,") != "":
			return nil, "", false // not a number list: no note syntax
		}
		rest = after
	}
}

func parseNumbers(s string) ([]int, bool) {
	for _, r := range s {
		// Only these can make a list Atoi reads; a label or a word is
		// refused here, before Atoi would make an error for it.
		if (r < '0' || r > '9') && r != '+' && r != '-' && r != ',' && !unicode.IsSpace(r) {
			return nil, false
		}
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(fields) == 0 {
		return nil, false
	}
	var out []int
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// FormatAnswer returns the command that answers prompt r with choice:
// "/answer k7m2qx 2", or "/answer k7m2qx.2 1,3" in a dialog of several
// prompts. Buttons on every channel carry exactly this string.
func FormatAnswer(r PromptRef, choice string) string {
	return "/answer " + r.Target() + " " + choice
}

// FormatOption returns the command that picks options (0-based indexes) of
// prompt r: FormatOption(q.Ref(0), 1) is "/answer k7m2qx 2".
func FormatOption(r PromptRef, options ...int) string {
	return FormatAnswer(r, optionNumbers(options))
}

func optionNumbers(options []int) string {
	parts := make([]string, len(options))
	for k, o := range options {
		parts[k] = strconv.Itoa(o + 1)
	}
	return strings.Join(parts, ",")
}

// FormatOther returns the command that gives free text to prompt r.
func FormatOther(r PromptRef, text string) string {
	return FormatAnswer(r, OtherWord+" "+text)
}

// FormatOptionsOther returns the command that picks options (0-based
// indexes) of prompt r and adds text as a note: "/answer k7m2qx 1,3 other
// and tags". Without options it is FormatOther, without text FormatOption.
func FormatOptionsOther(r PromptRef, options []int, text string) string {
	text = strings.TrimSpace(text)
	switch {
	case len(options) == 0:
		return FormatOther(r, text)
	case text == "":
		return FormatOption(r, options...)
	}
	return FormatOption(r, options...) + " " + OtherWord + " " + text
}

// FormatSkip returns the command that skips prompt r.
func FormatSkip(r PromptRef) string { return FormatAnswer(r, "skip") }

// FormatToggle returns the command that ticks or unticks option (0-based)
// of multi-select prompt r in the selection kept for the question:
// FormatToggle(q.Ref(1), 2) is "/toggle k7m2qx.2 3" in a dialog.
func FormatToggle(r PromptRef, option int) string {
	return "/toggle " + r.Target() + " " + strconv.Itoa(option+1)
}

// FormatPending returns "/pending <id>", which shows question id as it
// stands.
func FormatPending(id string) string { return "/pending " + id }

// FormatDecline returns "/decline <id>" with an optional reason.
func FormatDecline(id, reason string) string {
	if reason == "" {
		return "/decline " + id
	}
	return "/decline " + id + " " + reason
}

// FormatDiscuss returns "/discuss <id>" with an optional message.
func FormatDiscuss(id, msg string) string {
	if msg == "" {
		return "/discuss " + id
	}
	return "/discuss " + id + " " + msg
}
