package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/client"
)

// The local form of a question (Config.RaceLocal): its prompts as the
// requestedSchema of an elicitation/create, one property per prompt, and
// the way back from the form's content to the bridge's answers.

// formVersion is the first protocol version whose forms take titled
// choices (oneOf) and several choices (arrays); an older client gets
// plain enums with enumNames, and a prompt of several choices cannot be
// a form there.
const formVersion = "2025-11-25"

// localForm is the elicitation of one ask_user call.
type localForm struct {
	message string
	schema  map[string]any
	prompts []QuestionInput
}

// key is the property of prompt i.
func formKey(i int) string { return fmt.Sprintf("q%d", i+1) }

// formFor builds the form of in for a client on protocol version; when
// a prompt cannot be one property of a form, it returns nil and why.
func formFor(in *AskInput, version string) (*localForm, string) {
	titled := version >= formVersion
	props := map[string]any{}
	required := []string{}
	for i, p := range in.Questions {
		prop, why := formProperty(p, titled)
		if prop == nil {
			return nil, fmt.Sprintf("questions[%d]: %s", i, why)
		}
		props[formKey(i)] = prop
		required = append(required, formKey(i))
	}
	if len(props) == 0 {
		return nil, "no questions"
	}
	msg := "Answer here or in chat: the first answer counts."
	if len(in.Questions) == 1 {
		msg = in.Questions[0].Question + "\n\n" + msg
	}
	return &localForm{
		message: msg,
		schema:  map[string]any{"type": "object", "properties": props, "required": required},
		prompts: in.Questions,
	}, ""
}

// formProperty is the property of one prompt, or nil and why not.
func formProperty(p QuestionInput, titled bool) (map[string]any, string) {
	title := p.Question
	if p.Field != nil {
		return fieldProperty(p.Field, title, titled)
	}
	if len(p.Options) == 0 {
		return map[string]any{"type": "string", "title": title}, ""
	}
	labels := make([]string, len(p.Options))
	choices := make([]map[string]any, len(p.Options))
	var notes []string
	for i, o := range p.Options {
		labels[i] = o.Label
		choices[i] = map[string]any{"const": o.Label, "title": o.Label}
		if o.Description != "" {
			notes = append(notes, o.Label+": "+o.Description)
		}
	}
	prop := map[string]any{"title": title}
	if len(notes) > 0 {
		prop["description"] = strings.Join(notes, "\n")
	}
	switch {
	case p.MultiSelect && !titled:
		return nil, "several choices need a form of protocol " + formVersion + " or later"
	case p.MultiSelect:
		prop["type"], prop["items"] = "array", map[string]any{"anyOf": choices}
	case titled:
		prop["type"], prop["oneOf"] = "string", choices
	default:
		prop["type"], prop["enum"], prop["enumNames"] = "string", labels, labels
	}
	return prop, ""
}

// fieldProperty is a typed field's property: ask_user takes it written
// as one already, so it goes as given, titled by the question when it
// has no title of its own.
func fieldProperty(f *FieldInput, title string, titled bool) (map[string]any, string) {
	if !titled && (f.Type == "array" || f.OneOf != nil) {
		return nil, "a field of " + f.Type + " with titled choices needs a form of protocol " + formVersion + " or later"
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err.Error()
	}
	var prop map[string]any
	if err := json.Unmarshal(b, &prop); err != nil {
		return nil, err.Error()
	}
	delete(prop, "name")
	if f.Title == "" {
		prop["title"] = title
	}
	return prop, ""
}

// answers reads the accepted form's content as the bridge's answers,
// keyed by question text and each given by who.
func (f *localForm) answers(content map[string]any, who *client.Responder) (map[string]client.Answer, error) {
	out := map[string]client.Answer{}
	for i, p := range f.prompts {
		v, ok := content[formKey(i)]
		if !ok {
			return nil, fmt.Errorf("the form has no answer to %q", p.Question)
		}
		a := client.Answer{Selected: []string{}, AnsweredBy: who}
		switch {
		case p.Field != nil:
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			a.Value = raw
			switch fd := p.Field.Field(); {
			case fd.Type == client.FieldEnum || fd.Type == client.FieldMultiEnum:
				a.Selected = titlesOf(fd.Choices, stringsOf(v))
			case fd.Type == client.FieldString:
				a.CustomText, _ = v.(string)
			}
		case len(p.Options) > 0:
			a.Selected = stringsOf(v)
			if len(a.Selected) == 1 {
				for _, o := range p.Options {
					if o.Label == a.Selected[0] {
						a.Action, a.Prefill = o.Action, o.Prefill
					}
				}
			}
		default:
			s, _ := v.(string)
			a.CustomText = s
		}
		out[p.Question] = a
	}
	return out, nil
}

// stringsOf is a string or a list of strings as a list.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return []string{}
}

// titlesOf are the titles people see of the chosen values, as a chat
// answer's selected labels.
func titlesOf(choices []client.FieldChoice, values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		t := v
		for _, c := range choices {
			if c.Value == v && c.Title != "" {
				t = c.Title
			}
		}
		out = append(out, t)
	}
	return out
}
