package telegram

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// sentPlaceholder is the input_field_placeholder of the bot's latest
// force-reply message.
func (e *env) sentPlaceholder() string {
	e.t.Helper()
	calls := e.fake.Calls("sendMessage")
	for k := len(calls) - 1; k >= 0; k-- {
		var m struct {
			ForceReply  bool   `json:"force_reply"`
			Placeholder string `json:"input_field_placeholder"`
		}
		if json.Unmarshal([]byte(calls[k].Params.Get("reply_markup")), &m) == nil && m.ForceReply {
			return m.Placeholder
		}
	}
	e.t.Fatalf("the bot sent no force-reply message")
	return ""
}

// dialogSeen is what a person reads of the reply box around a card.
type dialogSeen struct {
	toast, prompt, placeholder, kept string
	buttons                          []string
	dropped, unknown                 string
}

// walkDialog opens the reply box of q's first prompt, types a note into
// it, reads the keyboard that offers it, drops it, and taps a button of
// no question.
func walkDialog(e *env, q *broker.Question, m telegramfake.Message, note string) dialogSeen {
	e.t.Helper()
	var d dialogSeen
	d.toast = e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, stepData(broker.StepOther, q.Ref(0)))).Text
	prompt := e.lastPrompt(team.ID, m.ID)
	d.prompt, d.placeholder = prompt.Text, e.sentPlaceholder()
	mine := e.fake.Send(ana, team.ID, note, prompt.ID)
	d.kept = e.waitReply(team.ID, mine).Text
	held := e.waitMessage(team.ID, m.ID, "offered the note", func(m telegramfake.Message) bool {
		return buttons(m)[""] == "" && len(buttons(m)) > 0 && hasData(m, stepData(broker.StepDropNote, q.Ref(0)))
	})
	for _, row := range held.Keyboard {
		for _, b := range row {
			d.buttons = append(d.buttons, b.Text)
		}
	}
	d.dropped = e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, stepData(broker.StepDropNote, q.Ref(0)))).Text
	d.unknown = e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "zz:nothing")).Text
	return d
}

func hasData(m telegramfake.Message, data string) bool {
	for _, d := range buttons(m) {
		if d == data {
			return true
		}
	}
	return false
}

// TestDialogsGerman: a German channel's reply box, its prompt, its
// placeholder, the toasts and the buttons of the held note are German.
func TestDialogsGerman(t *testing.T) {
	e := newEnv(t, envOptions{locale: "de"})
	q, m := e.ask(dbRequest(), team)
	d := walkDialog(e, q, m, "mit WAL")
	checks := []struct{ what, got, want string }{
		{"toast", d.toast, "Schreiben Sie in das Antwortfeld und tippen Sie dann auf die passende Option oder auf Als meine Antwort senden."},
		{"placeholder", d.placeholder, "Ihre Antwort oder Notiz"},
		{"kept", d.kept, "Gespeichert: „mit WAL“. Tippen Sie auf eine Option, um den Text als deren Notiz zu senden, oder auf Als meine Antwort senden, um ihn allein zu senden."},
		{"dropped", d.dropped, "Notiz verworfen."},
		{"unknown", d.unknown, "Diese Schaltfläche gehört zu keiner aktuellen Frage."},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	for _, want := range []string{
		"Ana, bitte geben Sie Ihre Antwort oder eine Notiz zu einer Option für diese Frage ein: Which database should we use?",
		"(tippen Sie dann auf die passende Option, oder auf Als meine Antwort senden, um den Text allein zu senden; wie die Eingabe von /answer " + q.ID + " 1 other … für Option 1 oder /answer " + q.ID + " other …)",
	} {
		if !strings.Contains(d.prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, d.prompt)
		}
	}
	for _, want := range []string{"2. SQLite + Notiz", "Als meine Antwort senden", "📝 Ändern…", "✖ Notiz verwerfen"} {
		if !strings.Contains(strings.Join(d.buttons, "\n"), want) {
			t.Errorf("the keyboard lacks %q: %q", want, d.buttons)
		}
	}
}

// TestDialogsPersonsLanguage: a toast with no card at hand is in the
// language of the person who tapped, in a channel that speaks English.
func TestDialogsPersonsLanguage(t *testing.T) {
	e := newEnv(t, envOptions{anaLocale: "ja"})
	_, m := e.ask(dbRequest(), team)
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "zz:nothing")).Text; got != "このボタンは現在の質問のものではありません。" {
		t.Errorf("Ana's toast = %q, want it in Japanese", got)
	}
	if got := e.waitCallback(e.fake.Tap(bob, team.ID, m.ID, "zz:nothing")).Text; got != "This button is not from a current question." {
		t.Errorf("Bob's toast = %q, want it in the channel's English", got)
	}
}

// TestDialogsPseudoLocale: in en-XA every word of the reply box, its
// toasts and the held note's buttons comes from the catalog, and each
// text is within Telegram's limits.
func TestDialogsPseudoLocale(t *testing.T) {
	for _, req := range []*broker.AskRequest{dbRequest(), regionsRequest(), {Question: "Anything else?"}} {
		t.Run(req.Question, func(t *testing.T) {
			e := newEnv(t, envOptions{locale: i18n.Pseudo})
			q, m := e.ask(req, team)
			keep := []string{req.Question, "Ana", "/answer " + q.ID}
			for _, o := range req.Options {
				keep = append(keep, o.Label)
			}
			var texts map[string]string
			if len(req.Options) == 0 {
				toast := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, stepData(broker.StepOther, q.Ref(0)))).Text
				prompt := e.lastPrompt(team.ID, m.ID)
				texts = map[string]string{"toast": toast, "prompt": prompt.Text, "placeholder": e.sentPlaceholder()}
			} else {
				d := walkDialog(e, q, m, "held")
				texts = map[string]string{"toast": d.toast, "prompt": d.prompt, "placeholder": d.placeholder,
					"kept": d.kept, "dropped": d.dropped, "unknown": d.unknown, "buttons": strings.Join(d.buttons, "\n")}
				keep = append(keep, "held")
			}
			for what, text := range texts {
				if words := i18ntest.Untranslated(text, keep...); len(words) > 0 {
					t.Errorf("%s has untranslated words %q:\n%s", what, words, text)
				}
			}
			if n := utf8.RuneCountInString(texts["placeholder"]); n > maxPlaceholder || n == 0 {
				t.Errorf("placeholder %q is %d characters; Telegram takes 1–%d", texts["placeholder"], n, maxPlaceholder)
			}
		})
	}
}

// maxPlaceholder is Telegram's limit on a reply box's placeholder.
const maxPlaceholder = 64

// TestDialogLimits: every toast and placeholder the channel writes fits
// Telegram in every language, with the card's longest control label in
// it, without being cut.
func TestDialogLimits(t *testing.T) {
	for _, loc := range i18n.Locales() {
		w := i18n.For(loc)
		label := w.T("control.other")
		if s := w.T("control.submit"); len(s) > len(label) {
			label = s
		}
		alone := w.T("dialog.telegram.send_as_answer")
		toasts := map[string]string{
			"button_gone":      w.T("dialog.telegram.button_gone"),
			"button_unknown":   w.T("dialog.telegram.button_unknown"),
			"nothing_ticked":   w.T("dialog.telegram.nothing_ticked"),
			"earlier_step":     w.T("dialog.telegram.earlier_step"),
			"no_typed_answer":  w.T("dialog.telegram.no_typed_answer"),
			"toast_answer":     w.T("dialog.telegram.toast_answer"),
			"toast_note":       w.T("dialog.telegram.toast_note", alone),
			"toast_note_multi": w.T("dialog.telegram.toast_note_multi", label, alone),
			"box_failed":       w.T("dialog.telegram.box_failed"),
			"lost":             w.T("dialog.telegram.lost"),
			"lost_tap":         w.T("dialog.telegram.lost_tap", label),
			"note_empty":       w.T("dialog.telegram.note_empty"),
			"note_dropped":     w.T("dialog.telegram.note_dropped"),
			// After the broker's reply to a toggle ("Selected: …").
			"tap_when_ready": w.T("dialog.telegram.tap_when_ready", label),
		}
		for id, s := range toasts {
			if n := len(utf16.Encode([]rune(s))); n > maxToast {
				t.Errorf("%s %s is %d characters, past Telegram's %d for a toast: %q", loc, id, n, maxToast, s)
			}
			if toast(s) != s {
				t.Errorf("%s %s is cut as a toast: %q", loc, id, toast(s))
			}
		}
		for _, id := range []string{"dialog.telegram.placeholder_answer", "dialog.telegram.placeholder_note"} {
			if n := utf8.RuneCountInString(w.T(id)); n > maxPlaceholder {
				t.Errorf("%s %s is %d characters, past Telegram's %d: %q", loc, id, n, maxPlaceholder, w.T(id))
			}
		}
	}
}
