package broker

import (
	"context"
	"fmt"
	"slices"
	"strconv"
)

// An answer given at the agent's own screen: `bridge mcp --race-local`
// shows a question in the client as a form too, and a person may answer
// there before anyone does in chat. The agent reports that answer, and the
// question ends answered by the terminal, with the reason
// ReasonAnsweredAtTerminal: the agent gets the answer, the audit trail and
// the store keep it as an answer, and every chat copy is edited closed.

// TerminalChannel is the channel of a responder at the agent's own
// screen.
const TerminalChannel = "terminal"

// TerminalName is how people read a responder at the agent's own screen:
// "Answered by someone at the terminal at 14:02: Postgres".
const TerminalName = "someone at the terminal"

// AnswerAtTerminal ends the agent's pending question id as answered at
// the terminal with answers, keyed by prompt text: every prompt is
// answered, an option by its label (several when the prompt takes them),
// a field by its typed value, a free-text prompt by its text. user names
// the client the person used ("claude-code"). A question whose policy
// counts people (votes, forbid_requester) cannot be answered so: the
// agent's screen is not a person the policy can count. A closed question
// gives a *ClosedError; a wrong answer, or such a policy, a *FieldError,
// and nothing changes.
func (b *Broker) AnswerAtTerminal(ctx context.Context, agent, id, user string, answers map[string]Answer) (*Question, error) {
	q, err := b.Get(ctx, agent, id)
	if err != nil {
		return nil, err
	}
	if q.Status != StatusPending {
		return q, &ClosedError{Question: q}
	}
	if q.countsPeople() {
		// The policy wants votes, or someone other than the requester:
		// the agent's own screen is neither.
		return nil, fieldErr("answers", "the question's policy needs its answer from people in chat (votes, or someone other than the requester); an answer at the terminal cannot settle it")
	}
	who := Responder{Channel: TerminalChannel, User: user, Name: TerminalName}
	if who.User == "" {
		who.User = TerminalChannel
	}
	out, err := terminalAnswers(q, answers, who)
	if err != nil {
		return nil, err
	}
	return b.Resolve(ctx, id, Resolution{Status: StatusAnswered, Answers: out, AnsweredBy: &who, Reason: ReasonAnsweredAtTerminal})
}

// terminalAnswers checks answers against q's prompts and returns them as
// the question records them, each given by who.
func terminalAnswers(q *Question, answers map[string]Answer, who Responder) (map[string]Answer, error) {
	out := make(map[string]Answer, len(q.Prompts))
	for i, p := range q.Prompts {
		f := "answers[" + strconv.Quote(p.Question) + "]"
		a, ok := answers[p.Question]
		if !ok {
			return nil, fieldErr(f, "missing: every question needs an answer (question %d of %d)", i+1, len(q.Prompts))
		}
		got, err := terminalAnswer(p, a)
		if err != nil {
			return nil, fieldErr(f, "%s", err.Error())
		}
		got.AnsweredBy = &who
		out[p.Question] = got
	}
	for k := range answers {
		if _, ok := out[k]; !ok {
			return nil, fieldErr("answers["+strconv.Quote(k)+"]", "the question has no prompt with that text")
		}
	}
	return out, nil
}

// terminalAnswer is the answer a to prompt p, checked.
func terminalAnswer(p Prompt, a Answer) (Answer, error) {
	out := Answer{Selected: []string{}}
	if a.Skipped {
		out.Skipped = true
		return out, nil
	}
	if p.Field != nil {
		v, ok := p.Field.checkValue(a.Value)
		if !ok {
			return out, fmt.Errorf("value: %s is not an answer of the field's type %s", orNothing(a.Value.String()), p.Field.Type)
		}
		out.Value = v
		if !p.Field.choiceType() {
			if err := v.Decode(&out.CustomText); err != nil {
				out.CustomText = v.String()
			}
			return out, nil
		}
		out.Selected = p.Field.valueTexts(v)
		return out, nil
	}
	if len(p.Options) == 0 {
		if a.CustomText == "" {
			return out, fmt.Errorf("custom_text: the question takes free text; it is empty")
		}
		out.CustomText = a.CustomText
		return out, nil
	}
	for _, label := range a.Selected {
		k := OptionIndex(p, label)
		if k < 0 || slices.Contains(out.Selected, p.Options[k].Label) {
			return out, fmt.Errorf("selected: %q is not an option (or is given twice)", label)
		}
		out.Selected = append(out.Selected, p.Options[k].Label)
	}
	switch {
	case len(out.Selected) > 1 && !p.MultiSelect:
		return out, fmt.Errorf("selected: the question takes one option, got %d", len(out.Selected))
	case a.CustomText != "" && !p.AllowsOther():
		return out, fmt.Errorf("custom_text: the question takes only its options")
	case len(out.Selected) == 0 && a.CustomText == "":
		return out, fmt.Errorf("selected: choose an option")
	}
	out.CustomText = a.CustomText
	if len(out.Selected) == 1 {
		o := p.Options[OptionIndex(p, out.Selected[0])]
		out.Action, out.Prefill = o.Action, o.Prefill
	}
	return out, nil
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
