package telegram

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// TestToggleRedrawsEveryChat: a question posted to two chats; options
// ticked in one chat show in the other chat's keyboard, and the other way
// round, and Submit in the second chat sends the selection both built.
func TestToggleRedrawsEveryChat(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, _, err := e.b.Ask(e.ctx, "agent", withRoute(regionsRequest(), "two"))
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	inTeam, inOps := e.fake.BotMessages(team.ID), e.fake.BotMessages(ops.ID)
	if len(inTeam) != 1 || len(inOps) != 1 {
		t.Fatalf("copies: %d in Team, %d in Ops; want one each", len(inTeam), len(inOps))
	}
	a, b := inTeam[0], inOps[0]
	if got := buttons(b)["☐ 1. Europe"]; got != stepData(broker.StepToggle, q.Ref(0), 0) {
		t.Fatalf("the toggle button carries %q", got)
	}

	e.waitCallback(e.fake.Tap(ana, team.ID, a.ID, buttons(a)["☐ 1. Europe"]))
	toast := e.waitCallback(e.fake.Tap(ana, team.ID, a.ID, buttons(a)["☐ 3. Asia"]))
	if toast.Text != "Selected: Europe, Asia. Tap Submit when ready." {
		t.Errorf("toast %q", toast.Text)
	}
	shows := func(want map[string]bool, done string) func(telegramfake.Message) bool {
		return func(m telegramfake.Message) bool {
			bs := buttons(m)
			for label, on := range want {
				box := "☐ "
				if on {
					box = "✓ "
				}
				if bs[box+label] == "" {
					return false
				}
			}
			return bs[done] != ""
		}
	}
	b = e.waitMessage(ops.ID, b.ID, "showed the selection made in Team", shows(map[string]bool{"1. Europe": true, "2. Americas": false, "3. Asia": true}, "Submit (1, 3)"))
	e.waitMessage(team.ID, a.ID, "showed its own selection", shows(map[string]bool{"1. Europe": true, "2. Americas": false, "3. Asia": true}, "Submit (1, 3)"))

	// Unticking in Ops shows in Team.
	e.waitCallback(e.fake.Tap(bob, ops.ID, b.ID, buttons(b)["✓ 1. Europe"]))
	a = e.waitMessage(team.ID, a.ID, "showed the selection changed in Ops", shows(map[string]bool{"1. Europe": false, "3. Asia": true}, "Submit (3)"))
	b = e.waitMessage(ops.ID, b.ID, "showed its own change", shows(map[string]bool{"1. Europe": false, "3. Asia": true}, "Submit (3)"))

	if got := e.waitCallback(e.fake.Tap(bob, ops.ID, b.ID, buttons(b)["Submit (3)"])); got.Text != "Recorded: Asia" {
		t.Errorf("Submit told %q", got.Text)
	}
	got := e.waitResolved(q.ID)
	if sel := got.Answers[q.Prompts[0].Question].Selected; len(sel) != 1 || sel[0] != "Asia" {
		t.Errorf("answer %v, want [Asia]", sel)
	}
	for _, c := range []struct {
		chat int64
		id   int
	}{{team.ID, a.ID}, {ops.ID, b.ID}} {
		e.waitMessage(c.chat, c.id, "showed the outcome", func(m telegramfake.Message) bool {
			return strings.Contains(m.Text, "Answered by Bob at ") && len(m.Keyboard) == 0
		})
	}
}

// TestToggleRefusedChangesNothing: a toggle on a resolved question is
// refused in the toast, naming why, and the selection stays as it was.
func TestToggleRefusedChangesNothing(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(regionsRequest(), team)
	toggle := buttons(m)["☐ 2. Americas"]
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, toggle))
	if r := e.b.HandleInbound(e.ctx, broker.Inbound{Channel: Name, Chat: chatID(team), User: "42", Name: "@ana", Text: "/decline " + q.ID}); !r.OK {
		t.Fatalf("decline: %s", r.Text)
	}
	got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, toggle))
	if !strings.HasPrefix(got.Text, "Already declined by @ana at ") || !got.ShowAlert {
		t.Errorf("toggle after the decline told %+v", got)
	}
	if sel := e.get(q.ID).Selections[0]; len(sel) != 1 || sel[0] != 1 {
		t.Errorf("selection %v, want [1] as before", sel)
	}
}

// TestOtherReadsTheQuestionThroughTheBroker: the Other… reply box is
// opened from the question as the store holds it, with the broker's
// checks: someone who may not answer, or a question already closed, is
// told so at the tap and no reply box opens.
func TestOtherReadsTheQuestionThroughTheBroker(t *testing.T) {
	e := newEnv(t, envOptions{responders: []string{"telegram:42"}})
	q, m := e.ask(dbRequest(), team)
	other := buttons(m)["Other or note…"]
	before := len(e.fake.BotMessages(team.ID))
	got := e.waitCallback(e.fake.Tap(bob, team.ID, m.ID, other))
	if got.Text != "You are not one of the people asked to answer "+q.ID+"; nothing was recorded." || !got.ShowAlert {
		t.Errorf("Other… by someone who may not answer told %+v", got)
	}
	if n := len(e.fake.BotMessages(team.ID)); n != before {
		t.Errorf("a reply box opened for someone who may not answer")
	}
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, other)); got.Text != "Type in the reply box, then tap the option it goes with or Send as my answer." {
		t.Errorf("Other… by ana told %+v", got)
	}
	if r := e.b.HandleInbound(e.ctx, broker.Inbound{Channel: Name, Chat: chatID(team), User: "42", Name: "@ana", Text: "/decline " + q.ID}); !r.OK {
		t.Fatalf("decline: %s", r.Text)
	}
	before = len(e.fake.BotMessages(team.ID))
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, other)); !strings.HasPrefix(got.Text, "Already declined by @ana at ") || !got.ShowAlert {
		t.Errorf("Other… on a closed question told %+v", got)
	}
	if n := len(e.fake.BotMessages(team.ID)); n != before {
		t.Errorf("a reply box opened for a closed question")
	}
}
