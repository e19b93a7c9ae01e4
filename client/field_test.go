package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// TestAskFormTypedFields asks a form of typed fields through a real
// bridge; the person first gives a port out of range, which the bridge
// refuses, then answers each field, and the form reads the values typed.
func TestAskFormTypedFields(t *testing.T) {
	br := newBridge(t, func(q *broker.Question) []string {
		return []string{
			"/answer " + q.ID + ".1 80",
			"/answer " + q.ID + ".1 8443",
			"/answer " + q.ID + ".2 yes",
			"/answer " + q.ID + ".3 eu,ap",
			"/answer " + q.ID + ".4 2026-12-03",
		}
	})
	c := newClient(br)
	f := client.NewForm().
		Field("Which port?", client.IntField("port", "Port", 1024, 65535)).
		Field("Deploy now?", client.BoolField("now", "Deploy")).
		Field("Which regions?", client.MultiEnumField("regions", "Regions", "eu", "us", "ap")).
		Field("Start on?", client.TextField("start", "Start date", client.FormatDate))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ans, err := c.AskForm(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	port, ok := ans.Int("Which port?")
	if !ok || port != 8443 {
		t.Errorf("port %d (%v), want 8443: the refused 80 must not count", port, ok)
	}
	if now, ok := ans.Bool("Deploy now?"); !ok || !now {
		t.Errorf("deploy %v (%v), want true", now, ok)
	}
	if got := fmt.Sprint(ans.Values("Which regions?")); got != "[eu ap]" {
		t.Errorf("regions %s, want [eu ap]", got)
	}
	var start string
	if err := ans.Decode("Start on?", &start); err != nil || start != "2026-12-03" {
		t.Errorf("start %q, %v", start, err)
	}
	if got := ans.Choices("Which regions?"); fmt.Sprint(got) != "[eu ap]" {
		t.Errorf("the labels read %v", got)
	}
	if _, ok := ans.Number("Which port?"); !ok {
		t.Error("a whole number does not read as a number")
	}
	if err := ans.Decode("Nothing asked?", &start); !errors.Is(err, client.ErrNoValue) {
		t.Errorf("Decode of an unknown prompt = %v, want ErrNoValue", err)
	}
}

// TestAskFormTypedDefault lets a typed field time out: its default comes
// back typed, marked as the default.
func TestAskFormTypedDefault(t *testing.T) {
	br := newBridge(t, func(q *broker.Question) []string { return []string{"/answer " + q.ID + ".1 ok"} })
	c := newClient(br)
	port, err := client.IntField("port", "Port", 1024, 65535).WithDefault(8080)
	if err != nil {
		t.Fatal(err)
	}
	f := client.NewForm().Text("Anything else?").Field("Which port?", port)
	f.Question.Timeout = "10s"
	done := make(chan struct{})
	go func() { defer close(done); sweepWhenAnswered(t, br, 1) }()
	defer func() { <-done }()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ans, err := c.AskForm(ctx, f)
	if err != nil {
		t.Fatalf("AskForm: %v (every prompt has an answer or a default)", err)
	}
	if got, ok := ans.Int("Which port?"); !ok || got != 8080 || !ans.Defaulted("Which port?") {
		t.Errorf("port %d (%v), defaulted %v; want the default 8080", got, ok, ans.Defaulted("Which port?"))
	}
}

// TestFormFieldBadInput checks that a bad field comes back as the
// bridge's 400 naming the key, and a default Go cannot write as JSON as
// an error of WithDefault.
func TestFormFieldBadInput(t *testing.T) {
	br := newBridge(t, nil)
	c := newClient(br)
	_, err := c.AskForm(context.Background(), client.NewForm().Field("Which port?", client.IntField("port", "Port", 10, 1)).Text("More?"))
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Field != "questions[0].field.minimum" {
		t.Fatalf("AskForm with minimum over maximum = %v, want a 400 naming questions[0].field.minimum", err)
	}
	if _, err := client.BoolField("x", "X").WithDefault(func() {}); err == nil {
		t.Error("WithDefault took a function")
	}
}
