package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Outcome is the structured content of every tool result: where the
// question stands and, once it ended, how.
type Outcome struct {
	ID     string        `json:"id" jsonschema:"the question id"`
	Status client.Status `json:"status" jsonschema:"pending, answered, declined, cancelled, timed_out or unsupported"`
	// Answers are keyed by question text.
	Answers map[string]client.Answer `json:"answers,omitempty" jsonschema:"the answers keyed by question text: selected labels, custom_text typed instead or as a note beside them, value (the typed answer of a question with a field: 8080, true, \"eu\", [\"eu\"]), skipped, answered_by (who gave this answer), defaulted (true when nobody answered and the default was used)"`
	// Fallback says what a timed-out question's unanswered prompts got.
	Fallback string `json:"fallback,omitempty" jsonschema:"for timed_out: default when every question nobody answered took its default, partial when only some did, none when no default was used; answers people gave are kept in every case"`
	Reason   string `json:"reason,omitempty" jsonschema:"why the question was declined, cancelled or unsupported"`
	NotReady bool   `json:"not_ready,omitempty" jsonschema:"true when the person wants to discuss before answering"`
	// AnsweredBy is the same object as the HTTP API's answered_by.
	AnsweredBy *client.Responder `json:"answered_by,omitempty" jsonschema:"who answered or declined: channel, user and name; absent for a timeout"`
	ExpiresAt  *time.Time        `json:"expires_at,omitempty" jsonschema:"when a pending question times out"`
	// Warnings are the bridge's warnings when the question was asked.
	Warnings []string `json:"warnings,omitempty" jsonschema:"what may keep the question from being answered, said when it was asked: nobody watching the channels it went to, when it will time out and what happens then"`
}

// outcomeOptions infer the schema of an Outcome: an answer's value is any
// JSON value, not the bytes that hold it.
var outcomeOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
}}

// outcomeOf is the structured view of a bridge result.
func outcomeOf(r *client.Result) Outcome {
	o := Outcome{ID: r.ID, Status: r.Status, Fallback: r.Fallback, Reason: r.Reason, NotReady: r.NotReady, AnsweredBy: r.AnsweredBy, Warnings: r.Warnings}
	if len(r.Answers) > 0 {
		o.Answers = r.Answers
	}
	if r.Status == client.StatusPending && !r.ExpiresAt.IsZero() {
		t := r.ExpiresAt.UTC()
		o.ExpiresAt = &t
	}
	return o
}

// Texts the model reads. They say what happened and what to do next.
const (
	textAnswered    = "User answered your questions:"
	textUnsupported = "No channel is configured to reach the user: ask in your reply instead."
	textDeclineTail = "Do not ask again unless you must."
	textProceed     = "Nobody will answer: state the assumption you make and proceed, or put the question in your final reply."
	// TextQuestionsOff is ask_user's result when questions are turned off
	// for the run (Config.NoUserQuestion).
	TextQuestionsOff = "Questions to the user are turned off for this run. " + textProceed
	// ReasonQuestionsOffForRun is the reason in that result.
	ReasonQuestionsOffForRun = "questions are turned off for this run"
)

// nobodyAsked reports the reasons of questions that reached nobody on
// purpose: an agent with questions off, a route without targets.
func nobodyAsked(reason string) bool {
	return reason == broker.ReasonQuestionsOff || strings.HasSuffix(reason, ": nobody is asked")
}

// questionsOffResult is ask_user's result when questions are off for the
// run: no question, no bridge.
func questionsOffResult() *sdk.CallToolResult {
	return withText(TextQuestionsOff, Outcome{Status: client.StatusUnsupported, Reason: ReasonQuestionsOffForRun})
}

// outcomeText is what the model reads for a result.
func outcomeText(r *client.Result) string {
	switch r.Status {
	case client.StatusAnswered:
		return textAnswered + "\n" + answersJSON(r.Answers)
	case client.StatusDeclined:
		if r.NotReady {
			msg := "The user is not ready to answer and wants to discuss this first"
			if r.Reason != "" {
				msg += ": " + strings.TrimRight(r.Reason, ".") + "."
			} else {
				msg += "."
			}
			return msg + " Talk it through in your reply, asking what they want to clarify, instead of asking the same question again."
		}
		if r.Reason != "" {
			return "The user declined: " + strings.TrimRight(r.Reason, ".") + ". " + textDeclineTail
		}
		return "The user declined. " + textDeclineTail
	case client.StatusTimedOut:
		return timedOutText(r)
	case client.StatusCancelled:
		if r.Reason != "" {
			return "The question was cancelled: " + strings.TrimRight(r.Reason, ".") + "."
		}
		return "The question was cancelled."
	case client.StatusUnsupported:
		if nobodyAsked(r.Reason) {
			return "The question was not asked: " + strings.TrimRight(r.Reason, ".") + ". " + textProceed
		}
		return textUnsupported
	}
	return pendingText(r)
}

// timedOutText says what a timed-out question left: the answers people
// gave, the defaults used, and which questions have no answer.
func timedOutText(r *client.Result) string {
	var byPeople, defaulted int
	var missing []string
	order := make([]string, 0, len(r.Questions))
	for _, p := range r.Questions {
		order = append(order, p.Question)
	}
	if len(order) == 0 {
		for q := range r.Answers {
			order = append(order, q)
		}
	}
	for _, q := range order {
		a, ok := r.Answers[q]
		switch {
		case !ok:
			missing = append(missing, strconv.Quote(q))
		case a.Defaulted:
			defaulted++
		default:
			byPeople++
		}
	}
	switch {
	case byPeople == 0 && defaulted == 0:
		return "Nobody answered in time and there was no default: there is no answer. Decide without it, or ask in your reply."
	case byPeople == 0 && len(missing) == 0:
		return "Nobody answered in time, so the defaults were used:\n" + answersJSON(r.Answers)
	}
	s := "Nobody answered in time"
	if byPeople > 0 {
		s = fmt.Sprintf("Time ran out with %d of %d questions answered", byPeople, len(order))
	}
	switch {
	case defaulted > 0 && len(missing) == 0:
		s += "; the defaults were used for the rest"
	case defaulted > 0:
		s += "; the defaults were used where there was one, and there is no answer to " + strings.Join(missing, ", ")
	default:
		s += "; there is no answer to " + strings.Join(missing, ", ")
	}
	s += ". The answers (answered_by names who answered, defaulted marks a default):\n" + answersJSON(r.Answers)
	if len(missing) > 0 {
		s += "\nDecide the unanswered questions without an answer, or ask about them in your reply."
	}
	return s
}

func pendingText(r *client.Result) string {
	s := fmt.Sprintf("Question %s is waiting for an answer", r.ID)
	if !r.ExpiresAt.IsZero() {
		s += " (it times out at " + r.ExpiresAt.UTC().Format("2006-01-02 15:04:05 UTC") + ")"
	}
	return s + fmt.Sprintf(". Call get_answer with id %q to collect the answer, or cancel_question to withdraw it.", r.ID)
}

func answersJSON(a map[string]client.Answer) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(a)
	return strings.TrimRight(b.String(), "\n")
}

// resultFor is the tool result of a bridge result: text for the model and
// the same as structured content.
func resultFor(r *client.Result) *sdk.CallToolResult {
	return withText(outcomeText(r)+warningsText(r), outcomeOf(r))
}

// warningsText is a line per warning of r's ask, after the outcome.
func warningsText(r *client.Result) string {
	var b strings.Builder
	for _, w := range r.Warnings {
		b.WriteString("\nWarning: " + w + ".")
	}
	return b.String()
}

// keepWarnings gives res, read after the ask, the warnings of the ask.
func keepWarnings(res *client.Result, warnings []string) *client.Result {
	if res != nil && len(res.Warnings) == 0 {
		res.Warnings = warnings
	}
	return res
}

func withText(text string, o Outcome) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: o}
}

// toolError is a tool result that reports a problem to the model.
func toolError(err error) *sdk.CallToolResult {
	var r sdk.CallToolResult
	r.SetError(err)
	return &r
}

// textUnreachableTail follows the reason of an unreachable bridge.
const textUnreachableTail = "Nobody can be asked now: state the assumption you make and proceed, or put the question in your final reply."

// bridgeError turns a failed bridge call into a message for the model.
// The bridge's 400 messages already name the field; for a dialog of one
// question its field names are those of the single-question shortcut,
// which are rewritten to the tool's questions[0].… form.
func bridgeError(err error, prompts int) error {
	var ae *client.APIError
	var ce *client.ConnError
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("the askbridge server at %s cannot be reached (%s). %s", ce.Server, ce.Reason(), textUnreachableTail)
	case !errors.As(err, &ae):
		return errors.New("the bridge could not be reached (is bridge serve running?)")
	}
	msg := ae.Message
	if ae.StatusCode == 400 && prompts == 1 && ae.Field != "" && !strings.HasPrefix(ae.Field, "questions") && isPromptField(ae.Field) {
		msg = "questions[0]." + msg
	}
	msg = fieldKeys.Replace(msg)
	switch ae.StatusCode {
	case 400, 404, 409:
		return errors.New(msg)
	case 401, 403:
		return fmt.Errorf("the bridge refused the agent key: %s", msg)
	}
	return fmt.Errorf("the bridge failed: %s", msg)
}

func isPromptField(f string) bool {
	for _, p := range []string{"question", "header", "options", "multi_select", "other", "default", "field"} {
		if f == p || strings.HasPrefix(f, p+".") || strings.HasPrefix(f, p+"[") {
			return true
		}
	}
	return false
}
