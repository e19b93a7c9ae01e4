package broker

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// AlwaysAllowLabel is the start of the label of every "Always allow"
// option of a permission question.
const AlwaysAllowLabel = "Always allow"

// RuleOfferText says what picking "Always allow" makes of r, as the
// option's description shows it: "Always allow `npm test …` in this
// project (/home/ana/app)". It is built here only, so that the hook that
// offers the rule and the broker that checks the answer before storing
// it (AddRuleFromAnswer) read one text.
func RuleOfferText(r Rule) string {
	p := r.Pattern
	if r.Kind == RulePrefix {
		p += " …"
	}
	where := "anywhere"
	if r.Project != "" {
		where = "in this project (" + r.Project + ")"
	}
	return fmt.Sprintf("%s `%s` %s", AlwaysAllowLabel, p, where)
}

// RuleOfferLabel is the label of the option that offers r: "Always allow
// `npm test`" when that fits a label (at most 5 words and 60
// characters), else "Always allow", the description saying the rest.
func RuleOfferLabel(r Rule) string {
	l := fmt.Sprintf("%s `%s`", AlwaysAllowLabel, r.Pattern)
	if countWords(l) > maxLabelWords || utf8.RuneCountInString(l) > maxLabelChars || !textAllowed(l, kindName) {
		return AlwaysAllowLabel
	}
	return l
}

// IsAlwaysAllow reports whether an option's label is an "Always allow".
func IsAlwaysAllow(label string) bool {
	return len(label) >= len(AlwaysAllowLabel) && strings.EqualFold(label[:len(AlwaysAllowLabel)], AlwaysAllowLabel)
}
