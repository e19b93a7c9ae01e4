package broker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// lookChannel is a channel people must look at: it answers Watched with
// watched and err, and names its place.
type lookChannel struct {
	*brokertest.Channel
	place   string
	watched bool
	err     error
}

func (c *lookChannel) Watched(context.Context, *broker.Question, string) (bool, error) {
	return c.watched, c.err
}

func (c *lookChannel) WatchedPlace() string { return c.place }

// The warning names the places nobody watches and says what the deadline
// does; a channel that cannot tell who watches, or one that tells people
// itself, counts as watched.
func TestUnwatchedWarnings(t *testing.T) {
	inbox := &lookChannel{Channel: brokertest.NewChannel("inbox"), place: "the web inbox"}
	board := &lookChannel{Channel: brokertest.NewChannel("board"), place: "the board"}
	text := &lookChannel{Channel: brokertest.NewChannel("text")}
	broken := &lookChannel{Channel: brokertest.NewChannel("broken"), place: "the broken inbox", err: errors.New("store down")}
	chat := brokertest.NewChannel("chat")
	at := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	b, _ := startBridge(t, broker.Config{
		Now: func() time.Time { return at },
		Routes: map[string]broker.Route{
			broker.DefaultRoute: {Targets: []broker.Target{{Channel: "inbox"}, {Channel: "text"}}},
			"both":              {Targets: []broker.Target{{Channel: "inbox"}, {Channel: "board"}}},
			"text":              {Targets: []broker.Target{{Channel: "text"}}},
			"broken":            {Targets: []broker.Target{{Channel: "broken"}, {Channel: "text"}}},
			"chat":              {Targets: []broker.Target{{Channel: "text"}, {Channel: "chat", Chat: "c1"}}},
		},
		ReminderPoints: []float64{},
	}, inbox, board, text, broken, chat)
	one := func(d ...string) broker.Prompt {
		return broker.Prompt{Question: "Ship?", Header: "Ship", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}, Default: d}
	}
	two := func(d ...string) broker.Prompt {
		return broker.Prompt{Question: "Where?", Header: "Where", Options: []broker.Option{{Label: "EU"}, {Label: "US"}}, Default: d}
	}
	for _, tc := range []struct {
		name, route string
		prompts     []broker.Prompt
		want        string // "" for no warning
	}{
		{"no default", "", []broker.Prompt{one()},
			"nobody is watching the web inbox; the question will wait until 14:30 UTC, then time out with no answer"},
		{"its default", "", []broker.Prompt{one("No")},
			"nobody is watching the web inbox; the question will wait until 14:30 UTC, then time out with its default (No)"},
		{"every default", "", []broker.Prompt{one("No"), two("EU")},
			"nobody is watching the web inbox; the question will wait until 14:30 UTC, then time out with its defaults (No; EU)"},
		{"some defaults", "", []broker.Prompt{one("No"), two()},
			"nobody is watching the web inbox; the question will wait until 14:30 UTC, then time out, with the defaults where there are (Ship: No)"},
		{"two places", "both", []broker.Prompt{one()},
			"nobody is watching the web inbox or the board; the question will wait until 14:30 UTC, then time out with no answer"},
		{"text channel only", "text", []broker.Prompt{one()},
			"nobody is told of the question; the question will wait until 14:30 UTC, then time out with no answer"},
		{"a channel that cannot tell", "broken", []broker.Prompt{one()}, ""},
		{"also in a chat", "chat", []broker.Prompt{one()}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := b.AskWithWarnings(context.Background(), "agent", &broker.AskRequest{SessionID: "s", ToolCallID: tc.name, Route: tc.route, Questions: tc.prompts})
			if err != nil {
				t.Fatal(err)
			}
			if a.Question.Status != broker.StatusPending || !a.Created {
				t.Fatalf("asked: %s created=%v", a.Question.Status, a.Created)
			}
			got := strings.Join(a.Warnings, " | ")
			if got != tc.want {
				t.Fatalf("warnings = %q\nwant      %q", got, tc.want)
			}
		})
	}
	t.Run("a page opens", func(t *testing.T) {
		inbox.watched = true
		defer func() { inbox.watched = false }()
		a, err := b.AskWithWarnings(context.Background(), "agent", &broker.AskRequest{SessionID: "s", ToolCallID: "watched", Questions: []broker.Prompt{one()}})
		if err != nil || len(a.Warnings) != 0 {
			t.Fatalf("warnings = %q, %v; want none", a.Warnings, err)
		}
	})
}
