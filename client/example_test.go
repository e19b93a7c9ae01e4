package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Ask blocks until a person answers, and returns the answer.
func Example() {
	br, stop := exampleBridge(answer("2")) // the person taps "SQLite"
	defer stop()

	c := client.New(br.URL, "")
	res, err := c.Ask(context.Background(), client.Question{
		Question: "Which database should the service use?",
		Options:  []client.Option{{Label: "Postgres (Recommended)"}, {Label: "SQLite"}},
	})
	if err != nil {
		fmt.Println("no answer:", err)
		return
	}
	fmt.Println(res.Status, res.Answers["Which database should the service use?"].Selected)
	// Output: answered [SQLite]
}

func ExampleClient_Confirm() {
	br, stop := exampleBridge(answer("Yes"))
	defer stop()

	c := client.New(br.URL, "")
	ok, err := c.Confirm(context.Background(), "Delete the 3 stale branches?")
	fmt.Println(ok, err)
	// Output: true <nil>
}

// A declined question is an error that carries the person's reason.
func ExampleClient_Ask_declined() {
	br, stop := exampleBridge(func(q *broker.Question) []string {
		return []string{"/decline " + q.ID + " not during the release freeze"}
	})
	defer stop()

	c := client.New(br.URL, "")
	_, err := c.Ask(context.Background(), client.Question{
		Question: "Deploy to production now?",
		Options:  []client.Option{{Label: "Yes"}, {Label: "No"}},
	})
	var declined *client.DeclinedError
	if errors.As(err, &declined) {
		fmt.Println(errors.Is(err, client.ErrDeclined), declined.Reason)
	}
	// Output: true not during the release freeze
}

func ExampleClient_AskForm() {
	br, stop := exampleBridge(func(q *broker.Question) []string {
		return []string{
			"/answer " + q.ID + ".1 Postgres",
			"/answer " + q.ID + ".2 2",
			"/answer " + q.ID + ".3 only after 18:00",
		}
	})
	defer stop()

	c := client.New(br.URL, "")
	f := client.NewForm().
		Choice("Which database?", "Postgres", "SQLite").
		YesNo("Run the migrations now?").
		Text("Any constraints?")
	ans, err := c.AskForm(context.Background(), f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ans.Choice("Which database?"), ans.YesNo("Run the migrations now?"), ans.Text("Any constraints?"))
	// Output: Postgres false only after 18:00
}

// In pending mode the agent goes on working and collects the answer from
// the event stream.
func ExampleClient_Events() {
	br, stop := exampleBridge(answer("1"))
	defer stop()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := client.New(br.URL, "")
	events, errc := c.Events(ctx, client.EventsFilter{SessionID: "build-42", LastEventID: "0"})
	id, err := c.AskAsync(ctx, client.Question{
		SessionID: "build-42",
		Question:  "Ship the release notes as drafted?",
		Options:   []client.Option{{Label: "Ship"}, {Label: "Hold"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	select {
	case ev := <-events:
		fmt.Println(ev.Type, ev.Result.ID == id, ev.Result.Answers["Ship the release notes as drafted?"].Selected)
	case err := <-errc:
		fmt.Println(err)
	}
	// Output: resolved true [Ship]
}
