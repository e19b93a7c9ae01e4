package cli_test

import (
	"context"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
)

func TestPostNamesTheQuestionAndUpdateIsQuiet(t *testing.T) {
	for _, name := range []string{"", "sms"} {
		ch := cli.New(name)
		want := name
		if want == "" {
			want = cli.Name
		}
		if ch.Name() != want {
			t.Fatalf("New(%q).Name() = %q, want %q", name, ch.Name(), want)
		}
		q := &broker.Question{ID: "k7m2qx"}
		ref, err := ch.Post(context.Background(), q, "+4912345")
		if err != nil || ref != (broker.MessageRef{Channel: want, Chat: "+4912345", MessageID: "k7m2qx"}) {
			t.Fatalf("Post = %+v, %v", ref, err)
		}
		if err := ch.Update(context.Background(), q, ref); err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
}
