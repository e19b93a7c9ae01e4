package slack

import (
	"github.com/askbridge/askbridge/broker"
	slackapi "github.com/slack-go/slack"
)

// actionSnooze is the action id of the Snooze button; its value is the
// /snooze command, sent through the same path as the other buttons.
const actionSnooze = "snooze"

// endActions are the buttons under a pending question: Not ready,
// Decline, and Snooze when its route allows snoozing.
func endActions(q *broker.Question) []slackapi.BlockElement {
	out := []slackapi.BlockElement{
		slackapi.NewButtonBlockElement(actionDiscuss, limit(broker.FormatDiscuss(q.ID, ""), maxButtonValue), plain("Not ready", maxButtonText)),
		slackapi.NewButtonBlockElement(actionDecline, limit(broker.FormatDecline(q.ID, ""), maxButtonValue), plain("Decline", maxButtonText)),
	}
	if cmd := broker.FormatSnooze(q); cmd != "" {
		out = append(out, slackapi.NewButtonBlockElement(actionSnooze, limit(cmd, maxButtonValue), plain("Snooze", maxButtonText)))
	}
	return out
}
