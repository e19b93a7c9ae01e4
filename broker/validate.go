package broker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of the model.
const (
	MaxPrompts         = 4
	minOptions         = 2
	MaxOptions         = 4
	MaxHeaderChars     = 16
	maxLabelWords      = 5
	maxLabelChars      = 60
	MaxQuestionChars   = 2000
	MaxDescriptionChar = 300
	MaxContextChars    = 4000
	MaxIDFieldChars    = 200
	MaxReasonChars     = 500
	MinTimeout         = 10 * time.Second
	MaxTimeout         = 7 * 24 * time.Hour
	DefaultTimeout     = 30 * time.Minute
	MinLease           = 5 * time.Second
	MaxLease           = 7 * 24 * time.Hour
)

// AskRequest is an agent's question as it arrives on any front door (HTTP
// API, CLI, MCP). Either Questions or the single-prompt shortcut fields
// (Question, Options, ...) are set, not both.
type AskRequest struct {
	SessionID   string     `json:"session_id,omitempty"`
	ToolCallID  string     `json:"tool_call_id,omitempty"`
	Questions   []Prompt   `json:"questions,omitempty"`
	Route       string     `json:"route,omitempty"`
	Timeout     *Duration  `json:"timeout,omitempty"`
	Context     string     `json:"context,omitempty"`
	Responders  []string   `json:"responders,omitempty"`
	CallbackURL string     `json:"callback_url,omitempty"`
	Lease       *Duration  `json:"lease,omitempty"`
	Reminders   []float64  `json:"reminders,omitempty"`
	Wait        *Duration  `json:"wait,omitempty"`
	Question    string     `json:"question,omitempty"`
	Header      string     `json:"header,omitempty"`
	Options     []Option   `json:"options,omitempty"`
	MultiSelect bool       `json:"multi_select,omitempty"`
	Other       *bool      `json:"other,omitempty"`
	Default     StringList `json:"default,omitempty"`
	Field       *Field     `json:"field,omitempty"`
	// Policy tightens the route's team policies (policy.go); RequestedBy
	// names the people the question is asked for.
	Policy      *Policy  `json:"policy,omitempty"`
	RequestedBy []string `json:"requested_by,omitempty"`
	// Conversation asks for a question of a live agent session
	// (Question.Conversation).
	Conversation bool `json:"conversation,omitempty"`
}

// Prompts returns the request's prompts, expanding the single-prompt
// shortcut.
func (r *AskRequest) Prompts() ([]Prompt, error) {
	short := r.Question != "" || r.Header != "" || len(r.Options) > 0 || r.MultiSelect || r.Other != nil || len(r.Default) > 0 || r.Field != nil
	if short && len(r.Questions) > 0 {
		return nil, fieldErr("question", "give either questions or the single-question fields (question, options, ...), not both")
	}
	if short {
		return []Prompt{{Question: r.Question, Header: r.Header, Options: r.Options, MultiSelect: r.MultiSelect, Other: r.Other, Default: r.Default, Field: r.Field}}, nil
	}
	return r.Questions, nil
}

// cleanPrompts checks prompts and returns them normalised (NFC, "\r\n"
// as "\n" in questions) in new memory.
func cleanPrompts(prompts []Prompt) ([]Prompt, error) {
	if len(prompts) == 0 {
		return nil, fieldErr("questions", "at least one question is required")
	}
	if len(prompts) > MaxPrompts {
		return nil, fieldErr("questions", "at most %d questions per dialog, got %d", MaxPrompts, len(prompts))
	}
	out := make([]Prompt, len(prompts))
	seen := map[string]bool{}
	for i, p := range prompts {
		f := "question"
		if len(prompts) > 1 {
			f = "questions[" + strconv.Itoa(i) + "]"
		}
		if err := checkPromptText(f, p); err != nil {
			return nil, err
		}
		if p.Field != nil {
			var err error
			if p, err = fieldPrompt(f, p); err != nil {
				return nil, err
			}
		}
		p = normalizePrompt(p)
		if err := validatePrompt(f, p); err != nil {
			return nil, choiceErr(f, p, err)
		}
		p = labelDefaults(p)
		key := strings.TrimSpace(p.Question)
		if seen[key] {
			return nil, fieldErr(promptField(f, "question"), "two questions of one dialog have the same text %q; answers are keyed by it", key)
		}
		seen[key] = true
		out[i] = p
	}
	if err := checkFieldNames(out); err != nil {
		return nil, err
	}
	return out, nil
}

// promptField names a field of the prompt at f: "question" and "header"
// for a single prompt, "questions[1].header" in a dialog.
func promptField(f, name string) string {
	if f == "question" {
		return name
	}
	return f + "." + name
}

func validatePrompt(f string, p Prompt) error {
	qf := "question"
	if f == "question" {
		f = ""
	} else {
		qf = f + ".question"
		f += "."
	}
	if strings.TrimSpace(p.Question) == "" {
		return fieldErr(qf, "must not be empty")
	}
	if n := utf8.RuneCountInString(p.Question); n > MaxQuestionChars {
		return fieldErr(qf, "at most %d characters, got %d", MaxQuestionChars, n)
	}
	if n := utf8.RuneCountInString(p.Header); n > MaxHeaderChars {
		return fieldErr(f+"header", "at most %d characters, got %d", MaxHeaderChars, n)
	}
	if len(p.Options) == 1 || len(p.Options) > MaxOptions {
		return fieldErr(f+"options", "give no options (free text) or %d–%d options, got %d", minOptions, MaxOptions, len(p.Options))
	}
	if len(p.Options) == 0 && !p.AllowsOther() {
		return fieldErr(f+"other", "must stay true when there are no options: free text is the only way to answer")
	}
	if len(p.Options) == 0 && p.MultiSelect {
		return fieldErr(f+"multi_select", "needs options to select from")
	}
	labels := map[string]bool{}
	for k, o := range p.Options {
		// The option's field name is made only for an error.
		of := func() string { return f + "options[" + strconv.Itoa(k) + "]" }
		label := strings.TrimSpace(o.Label)
		if label == "" {
			return fieldErr(of()+".label", "must not be empty")
		}
		if hasRecommendedSuffix(label) && k > 0 {
			return fieldErr(of()+".label", "only the first option may be marked %q", strings.TrimSpace(RecommendedSuffix))
		}
		bare := BareLabel(label)
		if words := countWords(bare); words < 1 || words > maxLabelWords {
			return fieldErr(of()+".label", "must be 1–%d words, got %d", maxLabelWords, words)
		}
		if n := utf8.RuneCountInString(label); n > maxLabelChars {
			return fieldErr(of()+".label", "at most %d characters, got %d", maxLabelChars, n)
		}
		key := foldKey(bare)
		if key == "other" {
			return fieldErr(of()+".label", "do not add an \"Other\" option: free text is offered unless other is false")
		}
		if key == "skip" {
			return fieldErr(of()+".label", "\"skip\" is a command word and cannot be a label")
		}
		if _, isNum := parseNumbers(bare); isNum {
			return fieldErr(of()+".label", "a label cannot be only numbers: typed numbers pick options by position")
		}
		if labels[key] {
			return fieldErr(of()+".label", "duplicate label %q: labels are compared ignoring case", label)
		}
		labels[key] = true
		if n := utf8.RuneCountInString(o.Description); n > MaxDescriptionChar {
			return fieldErr(of()+".description", "at most %d characters, got %d", MaxDescriptionChar, n)
		}
		switch n := utf8.RuneCountInString(o.Edit); {
		case n > MaxContextChars:
			return fieldErr(of()+".edit", "at most %d characters, got %d", MaxContextChars, n)
		case n > 0 && !p.AllowsOther():
			return fieldErr(of()+".edit", "needs free text: a prompt with other false takes no edited note")
		}
		switch o.Action {
		case "", ActionEndTurn, ActionNewSession:
		default:
			return fieldErr(of()+".action", "must be %q or %q, got %q", ActionEndTurn, ActionNewSession, o.Action)
		}
	}
	if len(p.Default) > 0 {
		df := f + "default"
		if !p.MultiSelect && len(p.Default) > 1 {
			return fieldErr(df, "a single-choice question takes one default, got %d", len(p.Default))
		}
		named := map[int]string{}
		for _, d := range p.Default {
			if strings.TrimSpace(d) == "" {
				return fieldErr(df, "must not be empty")
			}
			k := OptionIndex(p, d)
			if k < 0 && (p.MultiSelect || !p.AllowsOther()) {
				return fieldErr(df, "%q is not one of the options", d)
			}
			if first, twice := named[k]; twice && k >= 0 {
				return fieldErr(df, "%q and %q both name the option %q", first, d, p.Options[k].Label)
			}
			named[k] = d
		}
	}
	return nil
}

// labelDefaults returns p with every default that names an option
// written as that option's label, so that "sqlite" is stored, shown and
// answered as "SQLite" (or "SQLite (Recommended)"); a free-text default
// stays as written. p's defaults are already in new memory.
func labelDefaults(p Prompt) Prompt {
	for i, d := range p.Default {
		if k := OptionIndex(p, d); k >= 0 {
			p.Default[i] = p.Options[k].Label
		}
	}
	return p
}

func hasRecommendedSuffix(label string) bool {
	// RecommendedSuffix is ASCII, and no other character lowers to one of
	// its letters, so comparing its length of bytes ignoring case is
	// comparing the lowered label's end.
	label = strings.TrimSpace(label)
	n := len(RecommendedSuffix)
	return len(label) >= n && strings.EqualFold(label[len(label)-n:], RecommendedSuffix)
}

// countWords returns len(strings.Fields(s)) without making the fields.
func countWords(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			inWord = false
		} else if !inWord {
			inWord = true
			n++
		}
	}
	return n
}

// BareLabel returns label without the " (Recommended)" mark.
func BareLabel(label string) string {
	label = strings.TrimSpace(label)
	if hasRecommendedSuffix(label) {
		return strings.TrimSpace(label[:len(label)-len(RecommendedSuffix)])
	}
	return label
}

// OptionIndex returns the index of the option whose label is s, with or
// without the Recommended mark, or -1. Labels compare in NFC after full
// case folding, the same form in which cleanPrompts refuses duplicates,
// so a text matches at most one option.
func OptionIndex(p Prompt, s string) int {
	key := foldKey(BareLabel(s))
	for i, o := range p.Options {
		if foldKey(BareLabel(o.Label)) == key {
			return i
		}
	}
	return -1
}

// validateRequest checks everything in r that does not depend on
// configuration and returns the prompts to store, normalised to NFC. It
// normalises r.Context in place too, so that the fingerprint of a request
// does not depend on how its text was composed.
func validateRequest(r *AskRequest) ([]Prompt, error) {
	prompts, err := r.Prompts()
	if err != nil {
		return nil, err
	}
	if prompts, err = cleanPrompts(prompts); err != nil {
		return nil, err
	}
	for _, id := range []struct{ name, v string }{{"session_id", r.SessionID}, {"tool_call_id", r.ToolCallID}, {"route", r.Route}} {
		if len(id.v) > MaxIDFieldChars {
			return nil, fieldErr(id.name, "at most %d characters", MaxIDFieldChars)
		}
		if err := checkText(id.name, id.v, kindName); err != nil {
			return nil, err
		}
	}
	if err := checkText("context", prose(r.Context), kindProse); err != nil {
		return nil, err
	}
	r.Context = nfc(prose(r.Context))
	if n := utf8.RuneCountInString(r.Context); n > MaxContextChars {
		return nil, fieldErr("context", "at most %d characters, got %d", MaxContextChars, n)
	}
	var timeout time.Duration
	if r.Timeout != nil {
		timeout = time.Duration(*r.Timeout)
		if err := CheckTimeout(timeout); err != nil {
			return nil, fieldErr("timeout", "%v", err)
		}
	}
	if r.Lease != nil {
		if l := time.Duration(*r.Lease); l < MinLease || l > MaxLease {
			return nil, fieldErr("lease", "must be between %s and %s, got %s", MinLease, "7d", l)
		}
	}
	if r.Wait != nil && *r.Wait < 0 {
		return nil, fieldErr("wait", "must not be negative")
	}
	if err := ValidateReminders("reminders", r.Reminders, timeout); err != nil {
		return nil, err
	}
	for i, resp := range r.Responders {
		if _, err := parseResponder(resp); err != nil {
			return nil, fieldErr(fmt.Sprintf("responders[%d]", i), "%s", err.Error())
		}
	}
	if r.CallbackURL != "" {
		u, err := url.Parse(r.CallbackURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fieldErr("callback_url", "must be an absolute http or https URL, got %q", r.CallbackURL)
		}
	}
	return prompts, nil
}

// validateRouted checks what depends on the question's route and
// timeout: its responders against the route's targets and responders, its
// own reminder points against the timeout.
func validateRouted(r *AskRequest, route Route, timeout time.Duration, people *People) error {
	if len(route.Targets) == 0 {
		// Nobody is asked on a route without targets (or no such route):
		// the question resolves as unsupported, whoever it names.
		return ValidateReminders("reminders", r.Reminders, timeout)
	}
	if err := ValidateResponders("responders", r.Responders, route.Targets, people); err != nil {
		return err
	}
	if err := validateNarrowing("responders", r.Responders, route, people); err != nil {
		return err
	}
	return ValidateReminders("reminders", r.Reminders, timeout)
}

// fingerprintVersion names how a fingerprint is made: the SHA-256 of
// fingerprintJSON, written with encoding/json. A change to either gets a
// new version, so that a stored fingerprint is never compared with one
// made another way.
const fingerprintVersion = "v2:"

// Fingerprint returns a digest of the parts of a request that define the
// question, so that a second ask with the same idempotency key and another
// body is told apart (409) from a re-attach: fingerprintVersion, then the
// first 16 bytes of the SHA-256 of fingerprintJSON in hex (enough to tell
// two bodies apart, and every stored question keeps it).
func Fingerprint(r *AskRequest, prompts []Prompt) string {
	sum := sha256.Sum256(fingerprintJSON(r, prompts))
	return fingerprintVersion + hex.EncodeToString(sum[:16])
}

// sameAsk reports whether stored, the fingerprint of a stored question,
// is that of r and prompts, whose Fingerprint is fp. A fingerprint stored
// before fingerprints had a version (no prefix; read for one release) is
// compared in its own form, the same digest without the version. A
// version this bridge does not know never matches.
func sameAsk(stored, fp string) bool {
	if strings.HasPrefix(stored, fingerprintVersion) {
		return stored == fp
	}
	if strings.Contains(stored, ":") {
		return false
	}
	return stored == strings.TrimPrefix(fp, fingerprintVersion)
}

// fingerprintJSON is the JSON whose digest is the fingerprint.
func fingerprintJSON(r *AskRequest, prompts []Prompt) []byte {
	v := struct {
		P  []Prompt
		R  string
		T  *Duration
		C  string
		S  []string
		CB string
		L  *Duration
		RM []float64
		PO *Policy  `json:",omitempty"`
		RB []string `json:",omitempty"`
	}{prompts, r.Route, r.Timeout, r.Context, r.Responders, r.CallbackURL, r.Lease, r.Reminders, r.Policy, r.RequestedBy}
	b, _ := json.Marshal(v)
	return b
}

// CheckTimeout checks a question's timeout against the one range the
// bridge accepts, MinTimeout to MaxTimeout, wherever it is set (an ask, a
// route, the configuration's default, a hook's flag); the error says the
// range and what was given.
func CheckTimeout(d time.Duration) error {
	if d < MinTimeout || d > MaxTimeout {
		return fmt.Errorf("must be between %s and 7d, got %s", MinTimeout, d)
	}
	return nil
}
