package broker

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Checking a prompt's field when it is asked: every key the field's type
// does not take, every bound that cannot hold and every default that
// breaks the field's own rule is an error naming the key
// ("questions[1].field.maximum").

// The labels of a boolean field's options.
const (
	yesLabel = "Yes"
	noLabel  = "No"
)

// fieldPrompt checks the field of p, the prompt cleanPrompts calls f, and
// returns p as the field makes it, in new memory: an enum's choices as
// its options (several of them taken for a multi_enum), Yes and No for a
// boolean, no options and free text for the other types, and the
// default as people read it beside the typed one.
func fieldPrompt(f string, p Prompt) (Prompt, error) {
	fd := p.Field.clone()
	key := func(k string) string { return promptField(f, "field") + "." + k }
	switch {
	case len(p.Options) > 0:
		return p, fieldErr(promptField(f, "options"), "a prompt with a field takes no options: an enum field lists its choices in field.choices")
	case p.MultiSelect:
		return p, fieldErr(promptField(f, "multi_select"), "a field's type says whether several choices are taken: use the type %q", FieldMultiEnum)
	case p.Other != nil:
		return p, fieldErr(promptField(f, "other"), "a field's type says whether text is taken: leave other out")
	}
	if err := checkFieldText(key, fd); err != nil {
		return p, err
	}
	if err := checkFieldKeys(key, fd); err != nil {
		return p, err
	}
	var err error
	switch fd.Type {
	case FieldString:
		err = checkLengths(key, fd)
	case FieldNumber, FieldInteger:
		err = checkRange(key, fd)
	case FieldEnum, FieldMultiEnum:
		err = checkChoices(key, fd)
	}
	if err != nil {
		return p, err
	}
	no := false
	switch fd.Type {
	case FieldBoolean:
		p.Options, p.Other = []Option{{Label: yesLabel}, {Label: noLabel}}, &no
	case FieldEnum, FieldMultiEnum:
		p.Options = make([]Option, len(fd.Choices))
		for k, c := range fd.Choices {
			p.Options[k] = Option{Label: c.Label()}
		}
		p.Other, p.MultiSelect = &no, fd.Type == FieldMultiEnum
	}
	if err := fieldDefault(f, key, fd, &p); err != nil {
		return p, err
	}
	p.Field = fd
	return p, nil
}

// checkFieldText checks the texts of fd and writes its titles in NFC.
// Choice values are the agent's keys, returned as given.
func checkFieldText(key func(string) string, fd *Field) error {
	if fd.Name != "" {
		if n := utf8.RuneCountInString(fd.Name); n > maxFieldNameChars {
			return fieldErr(key("name"), "at most %d characters, got %d", maxFieldNameChars, n)
		}
		for _, r := range fd.Name {
			if !nameRune(r) {
				return fieldErr(key("name"), "%q has %q: a name is letters, digits, _, - and . only", fd.Name, r)
			}
		}
	}
	if err := checkText(key("title"), fd.Title, kindName); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(fd.Title); n > maxLabelChars {
		return fieldErr(key("title"), "at most %d characters, got %d", maxLabelChars, n)
	}
	if err := checkText(key("description"), fd.Description, kindLine); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(fd.Description); n > MaxDescriptionChar {
		return fieldErr(key("description"), "at most %d characters, got %d", MaxDescriptionChar, n)
	}
	fd.Title, fd.Description = nfc(strings.TrimSpace(fd.Title)), nfc(fd.Description)
	for k, c := range fd.Choices {
		ck := key("choices[" + strconv.Itoa(k) + "]")
		if err := checkText(ck+".value", c.Value, kindName); err != nil {
			return err
		}
		if err := checkText(ck+".title", c.Title, kindName); err != nil {
			return err
		}
		fd.Choices[k].Title = nfc(strings.TrimSpace(c.Title))
	}
	return nil
}

func nameRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// checkFieldKeys checks fd's type, and that fd sets no key its type
// does not take.
func checkFieldKeys(key func(string) string, fd *Field) error {
	valid := false
	for _, t := range FieldTypes {
		valid = valid || fd.Type == t
	}
	if !valid {
		return fieldErr(key("type"), "must be one of %s; got %q", typeList(), fd.Type)
	}
	numeric := fd.Type == FieldNumber || fd.Type == FieldInteger
	choice := fd.Type == FieldEnum || fd.Type == FieldMultiEnum
	for _, k := range []struct {
		name  string
		set   bool
		takes bool
		which string
	}{
		{"min_length", fd.MinLength != nil, fd.Type == FieldString, "a string field"},
		{"max_length", fd.MaxLength != nil, fd.Type == FieldString, "a string field"},
		{"format", fd.Format != "", fd.Type == FieldString, "a string field"},
		{"minimum", fd.Minimum != nil, numeric, "a number or integer field"},
		{"maximum", fd.Maximum != nil, numeric, "a number or integer field"},
		{"choices", fd.Choices != nil, choice, "an enum or multi_enum field"},
		{"min_items", fd.MinItems != nil, fd.Type == FieldMultiEnum, "a multi_enum field"},
		{"max_items", fd.MaxItems != nil, fd.Type == FieldMultiEnum, "a multi_enum field"},
	} {
		if k.set && !k.takes {
			return fieldErr(key(k.name), "only %s takes %s; this one is %s", k.which, k.name, fd.Type)
		}
	}
	return nil
}

func typeList() string {
	names := make([]string, len(FieldTypes))
	for i, t := range FieldTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// checkLengths checks a string field's lengths and format.
func checkLengths(key func(string) string, fd *Field) error {
	if fd.MinLength != nil && (*fd.MinLength < 0 || *fd.MinLength > MaxFieldLength) {
		return fieldErr(key("min_length"), "must be 0 to %d, got %d", MaxFieldLength, *fd.MinLength)
	}
	if fd.MaxLength != nil && (*fd.MaxLength < 1 || *fd.MaxLength > MaxFieldLength) {
		return fieldErr(key("max_length"), "must be 1 to %d, got %d", MaxFieldLength, *fd.MaxLength)
	}
	if fd.MinLength != nil && fd.MaxLength != nil && *fd.MinLength > *fd.MaxLength {
		return fieldErr(key("min_length"), "%d is more than max_length, %d", *fd.MinLength, *fd.MaxLength)
	}
	switch fd.Format {
	case "", FormatEmail, FormatURI, FormatDate, FormatDateTime:
		return nil
	}
	return fieldErr(key("format"), "must be one of %s; got %q", strings.Join(Formats, ", "), fd.Format)
}

// checkRange checks the bounds of a number or integer field: an integer
// field's are whole numbers a float64 holds exactly.
func checkRange(key func(string) string, fd *Field) error {
	for _, b := range []struct {
		name string
		v    *float64
	}{{"minimum", fd.Minimum}, {"maximum", fd.Maximum}} {
		if b.v == nil {
			continue
		}
		if math.IsNaN(*b.v) || math.IsInf(*b.v, 0) {
			return fieldErr(key(b.name), "must be a finite number")
		}
		if fd.Type == FieldInteger && (*b.v != math.Trunc(*b.v) || math.Abs(*b.v) > maxExactInteger) {
			return fieldErr(key(b.name), "an integer field takes whole-number bounds of at most 2^53 either way, got %s", numberText(*b.v))
		}
	}
	if fd.Minimum != nil && fd.Maximum != nil && *fd.Minimum > *fd.Maximum {
		return fieldErr(key("minimum"), "%s is more than maximum, %s", numberText(*fd.Minimum), numberText(*fd.Maximum))
	}
	return nil
}

// checkChoices checks an enum's choices and a multi_enum's item counts.
// The rules of option labels apply to the choices' labels when
// validatePrompt checks the options they become (choiceErr names the
// choice then).
func checkChoices(key func(string) string, fd *Field) error {
	n := len(fd.Choices)
	if n < minOptions || n > MaxOptions {
		return fieldErr(key("choices"), "give %d–%d choices, got %d", minOptions, MaxOptions, n)
	}
	values := map[string]bool{}
	for k, c := range fd.Choices {
		if strings.TrimSpace(c.Value) == "" {
			return fieldErr(key("choices["+strconv.Itoa(k)+"].value"), "must not be empty")
		}
		if values[c.Value] {
			return fieldErr(key("choices["+strconv.Itoa(k)+"].value"), "duplicate value %q", c.Value)
		}
		values[c.Value] = true
	}
	if fd.Type != FieldMultiEnum {
		return nil
	}
	if fd.MinItems != nil && (*fd.MinItems < 0 || *fd.MinItems > n) {
		return fieldErr(key("min_items"), "must be 0 to the number of choices, %d; got %d", n, *fd.MinItems)
	}
	if fd.MaxItems != nil && (*fd.MaxItems < 1 || *fd.MaxItems > n) {
		return fieldErr(key("max_items"), "must be 1 to the number of choices, %d; got %d", n, *fd.MaxItems)
	}
	if fd.MinItems != nil && fd.MaxItems != nil && *fd.MinItems > *fd.MaxItems {
		return fieldErr(key("min_items"), "%d is more than max_items, %d", *fd.MinItems, *fd.MaxItems)
	}
	return nil
}

// choiceErr names the choice of p's field whose label broke a rule of
// option labels, for an error validatePrompt gave on the option it
// became; other errors are returned as they are.
func choiceErr(f string, p Prompt, err error) error {
	var fe *FieldError
	prefix := promptField(f, "options[")
	if p.Field == nil || !p.Field.choiceType() || !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, prefix) {
		return err
	}
	k, rest, _ := strings.Cut(strings.TrimPrefix(fe.Field, prefix), "]")
	i, convErr := strconv.Atoi(k)
	if convErr != nil || i < 0 || i >= len(p.Field.Choices) {
		return err
	}
	part := "value"
	if p.Field.Choices[i].Title != "" {
		part = "title"
	}
	if rest != ".label" {
		part = strings.TrimPrefix(rest, ".")
	}
	return fieldErr(promptField(f, "field")+".choices["+k+"]."+part, "%s", fe.Message)
}

// fieldDefault sets the default of p and its field fd: the typed one
// fd has, or the one p has as text, read as a person's answer would be;
// never both. p.Default becomes the default as people read it (the
// choices' labels, Yes or No, the value's text).
func fieldDefault(f string, key func(string) string, fd *Field, p *Prompt) error {
	df := promptField(f, "default")
	switch {
	case !fd.Default.IsZero() && len(p.Default) > 0:
		return fieldErr(df, "give the default once: typed as field.default (8080, true, \"eu\"), or as default")
	case len(p.Default) > 0:
		v, err := fd.defaultOfText(p.Default)
		if err != nil {
			return fieldErr(df, "%s", err.Error())
		}
		fd.Default = v
	case !fd.Default.IsZero():
		v, ok := fd.checkValue(fd.Default)
		if !ok {
			return fieldErr(key("default"), "must be %s; got %s", fd.rule(), fd.Default.json)
		}
		fd.Default = v
	default:
		return nil
	}
	p.Default = fd.valueTexts(fd.Default)
	for _, d := range p.Default {
		if err := checkText(df, d, kindName); err != nil {
			return err
		}
	}
	return nil
}

// defaultOfText reads a prompt's default, given as text, as the typed
// default of fd: one answer, or for a multi_enum the choices it names.
func (fd *Field) defaultOfText(texts []string) (Value, error) {
	if fd.Type == FieldMultiEnum {
		var picked []string
		for _, t := range texts {
			k := fd.choiceOf(t)
			if k < 0 {
				return Value{}, errors.New(strconv.Quote(t) + " is not one of the choices")
			}
			picked = append(picked, fd.Choices[k].Value)
		}
		v, ok := fd.checkValue(plainValue(picked))
		if !ok {
			return Value{}, errors.New("must be " + fd.rule())
		}
		return v, nil
	}
	if len(texts) > 1 {
		return Value{}, errors.New("a " + string(fd.Type) + " field takes one default, got " + strconv.Itoa(len(texts)))
	}
	v, ok := fd.readText(texts[0])
	if !ok {
		return Value{}, errors.New("must be " + fd.rule() + "; got " + strconv.Quote(texts[0]))
	}
	return v, nil
}

// checkFieldNames refuses two fields of one dialog with the same name:
// an agent reads the values by it.
func checkFieldNames(prompts []Prompt) error {
	seen := map[string]bool{}
	for i, p := range prompts {
		if p.Field == nil || p.Field.Name == "" {
			continue
		}
		if seen[p.Field.Name] {
			return fieldErr("questions["+strconv.Itoa(i)+"].field.name", "two fields of one dialog are named %q", p.Field.Name)
		}
		seen[p.Field.Name] = true
	}
	return nil
}
