package cli_test

import (
	"context"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/cli"
)

func TestPostNamesTheQuestionAndThereIsNothingToEdit(t *testing.T) {
	ch, err := cli.New(cli.Config{}, &brokertest.Inbox{}, channels.Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if ch.Name() != cli.Name {
		t.Fatalf("Name() = %q, want %q", ch.Name(), cli.Name)
	}
	q := &broker.Question{ID: "k7m2qx"}
	ref, err := ch.Post(context.Background(), q, "+4912345")
	if err != nil || ref != (broker.MessageRef{Channel: cli.Name, Chat: "+4912345", MessageID: "k7m2qx"}) {
		t.Fatalf("Post = %+v, %v", ref, err)
	}
	if _, ok := any(ch).(broker.Updater); ok {
		t.Fatal("the text channel offers Update, but its inbox is the store: it has no copy to edit")
	}
}

func TestNewNeedsAHandler(t *testing.T) {
	if _, err := cli.New(cli.Config{}, nil, channels.Options{}); err == nil {
		t.Fatal("New without an inbound handler succeeded")
	}
}
