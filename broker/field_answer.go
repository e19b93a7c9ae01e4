package broker

import (
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/askbridge/askbridge/internal/i18n"
)

// Reading a person's answer to a prompt with a field, or a default given
// as text, as a value of the field's type (field_words.go says what each
// type takes, in words).

// interpretField is Interpret for a prompt with a field: the text read
// as the field's type, or the options picked, with the typed value.
func interpretField(p Prompt, c Choice) (Answer, error) {
	fd := p.Field
	if c.Kind == ChoiceSkip {
		return Answer{Selected: []string{}, Skipped: true}, nil
	}
	if !fd.choiceType() {
		text := c.Raw
		if c.Kind == ChoiceOther {
			text = c.Text
		}
		v, ok := fd.readText(text)
		if !ok {
			return Answer{}, fd.refusal(p)
		}
		return Answer{Selected: []string{}, CustomText: strings.TrimSpace(text), Value: v}, nil
	}
	if c.Kind == ChoiceText {
		// A choice's value, or yes and no in their other words, pick
		// as its label does.
		if nums, ok := fd.choicesOf(c.Text); ok {
			c = Choice{Kind: ChoiceNumbers, Numbers: nums, Raw: c.Raw}
		}
	}
	a, err := interpretChoice(p, c)
	if err != nil {
		return a, err
	}
	var values []string
	for _, label := range a.Selected {
		if k := OptionIndex(p, label); k >= 0 && fd.Type != FieldBoolean {
			values = append(values, fd.Choices[k].Value)
		}
	}
	switch {
	case fd.Type == FieldBoolean && len(a.Selected) == 1:
		a.Value = plainValue(OptionIndex(p, a.Selected[0]) == 0)
	case fd.Type == FieldEnum && len(values) == 1:
		a.Value = plainValue(values[0])
	case fd.Type == FieldMultiEnum && fd.itemsOK(len(values)):
		a.Value = plainValue(values)
	default:
		return Answer{}, fd.refusal(p)
	}
	return a, nil
}

// refusal is the reply to an answer that breaks fd's rule: "Port must be
// a whole number from 1024 to 65535; nothing was recorded."
func (fd *Field) refusal(p Prompt) error {
	rule := func(w *i18n.Printer) string { return fd.words(w) }
	switch {
	case fd.Title != "":
		return sayError(nil, "answer.field_rule", fd.Title, rule)
	case p.Header != "":
		return sayError(nil, "answer.field_rule", p.Header, rule)
	}
	return sayError(nil, "answer.field_rule_answer", rule)
}

// itemsOK reports whether n choices are within a multi_enum's counts; at
// least one is taken unless min_items says otherwise.
func (fd *Field) itemsOK(n int) bool {
	lo := 1
	if fd.MinItems != nil {
		lo = *fd.MinItems
	}
	return n >= lo && (fd.MaxItems == nil || n <= *fd.MaxItems)
}

// readText reads text, a person's answer or a default given as text, as
// a value of fd: ok is false when the text breaks fd's rule.
func (fd *Field) readText(text string) (v Value, ok bool) {
	s := strings.TrimSpace(text)
	switch fd.Type {
	case FieldNumber, FieldInteger:
		return fd.readNumber(s)
	case FieldBoolean, FieldEnum:
		nums, ok := fd.choicesOf(s)
		if !ok || len(nums) != 1 {
			return Value{}, false
		}
		if fd.Type == FieldBoolean {
			return plainValue(nums[0] == 1), true
		}
		return plainValue(fd.Choices[nums[0]-1].Value), true
	case FieldString:
		return fd.readString(s)
	}
	return Value{}, false
}

func (fd *Field) readNumber(s string) (Value, bool) {
	if !decimal(s) {
		return Value{}, false
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) {
		return Value{}, false
	}
	if (fd.Minimum != nil && x < *fd.Minimum) || (fd.Maximum != nil && x > *fd.Maximum) {
		return Value{}, false
	}
	if fd.Type == FieldInteger {
		if x != math.Trunc(x) || math.Abs(x) > maxExactInteger {
			return Value{}, false
		}
		return plainValue(int64(x)), true
	}
	return plainValue(x), true
}

// decimal reports whether s is a number written in decimal, as JSON and
// people write them, with an optional sign and exponent: "8080", "-0.5",
// "1e3"; not "0x1F", "Inf", "1_000" or "8,080".
func decimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func (fd *Field) readString(s string) (Value, bool) {
	n := utf8.RuneCountInString(s)
	if (fd.MinLength != nil && n < *fd.MinLength) || (fd.MaxLength != nil && n > *fd.MaxLength) {
		return Value{}, false
	}
	switch fd.Format {
	case FormatEmail:
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s {
			return Value{}, false
		}
	case FormatURI:
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() || (u.Host == "" && u.Opaque == "") || strings.IndexFunc(s, unicode.IsSpace) >= 0 {
			return Value{}, false
		}
	case FormatDate:
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return Value{}, false
		}
		s = t.Format(time.DateOnly)
	case FormatDateTime:
		if len(s) > 10 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return Value{}, false
		}
		s = t.Format(time.RFC3339Nano)
	}
	return plainValue(s), true
}

// choicesOf reads text as the choices of an enum, multi_enum or boolean
// field it names: labels or values, compared as labels are, separated by
// commas for a multi_enum; yes, y and true or no, n and false for a
// boolean. The numbers are 1-based; ok is false unless every part names
// a choice.
func (fd *Field) choicesOf(text string) (nums []int, ok bool) {
	parts := []string{text}
	if fd.Type == FieldMultiEnum {
		parts = strings.Split(text, ",")
	}
	for _, part := range parts {
		k := fd.choiceOf(part)
		if k < 0 {
			return nil, false
		}
		nums = append(nums, k+1)
	}
	return nums, len(nums) > 0
}

// choiceOf returns the 0-based choice text names, or -1.
func (fd *Field) choiceOf(text string) int {
	key := foldKey(text)
	if fd.Type == FieldBoolean {
		switch key {
		case "yes", "y", "true":
			return 0
		case "no", "n", "false":
			return 1
		}
		return -1
	}
	for k, c := range fd.Choices {
		if foldKey(c.Value) == key {
			return k
		}
	}
	for k, c := range fd.Choices {
		if foldKey(BareLabel(c.Label())) == foldKey(BareLabel(text)) {
			return k
		}
	}
	return -1
}

// checkValue checks v, a typed value an agent gave, against fd and
// returns it as answers write it (a date-time as RFC 3339, 8080.0 as
// 8080 for an integer).
func (fd *Field) checkValue(v Value) (Value, bool) {
	switch fd.Type {
	case FieldString, FieldEnum:
		var s string
		if !strings.HasPrefix(v.json, `"`) || v.Decode(&s) != nil {
			return Value{}, false
		}
		if fd.Type == FieldString {
			return fd.readString(s)
		}
		for _, c := range fd.Choices {
			if c.Value == s {
				return v, true
			}
		}
	case FieldNumber, FieldInteger:
		return fd.readNumber(v.json)
	case FieldBoolean:
		if v.json == "true" || v.json == "false" {
			return v, true
		}
	case FieldMultiEnum:
		var picked []string
		if !strings.HasPrefix(v.json, "[") || v.Decode(&picked) != nil || !fd.itemsOK(len(picked)) {
			return Value{}, false
		}
		seen := map[string]bool{}
		for _, s := range picked {
			if seen[s] || fd.choiceIndex(s) < 0 {
				return Value{}, false
			}
			seen[s] = true
		}
		return plainValue(picked), true
	}
	return Value{}, false
}

// choiceIndex returns the index of the choice whose value is exactly s,
// or -1.
func (fd *Field) choiceIndex(s string) int {
	for k, c := range fd.Choices {
		if c.Value == s {
			return k
		}
	}
	return -1
}

// valueTexts is v as people read it: the labels of the choices it
// names, Yes or No, or the text or number.
func (fd *Field) valueTexts(v Value) []string {
	switch fd.Type {
	case FieldBoolean:
		if v.json == "true" {
			return []string{yesLabel}
		}
		return []string{noLabel}
	case FieldEnum, FieldMultiEnum, FieldString:
		var picked []string
		if fd.Type == FieldMultiEnum {
			_ = v.Decode(&picked)
		} else {
			var s string
			_ = v.Decode(&s)
			picked = []string{s}
		}
		if fd.Type == FieldString {
			return picked
		}
		labels := make([]string, 0, len(picked))
		for _, s := range picked {
			if k := fd.choiceIndex(s); k >= 0 {
				labels = append(labels, fd.Choices[k].Label())
			}
		}
		return labels
	}
	return []string{v.json}
}
