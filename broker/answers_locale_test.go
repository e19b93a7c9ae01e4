package broker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// newLocaleEnv is a broker whose chat channel is in the pseudo-locale,
// with Ana reading German, Bo Japanese and Xa the pseudo-locale; anyone
// else in the chat reads the channel's language.
func newLocaleEnv(t *testing.T) *env {
	t.Helper()
	people := newPeople(t, []broker.Person{
		{ID: "ana", Name: "Ana", Accounts: []string{"chat:ana"}, Locale: "de"},
		{ID: "bo", Name: "Bo", Accounts: []string{"chat:bo"}, Locale: "ja"},
		{ID: "xa", Name: "Xa", Accounts: []string{"chat:xa"}, Locale: "en-XA"},
	}, nil)
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	ch := brokertest.NewChannel("chat")
	b, st := startBridge(t, broker.Config{Routes: routes, Now: clk.Now, People: people, ChannelLocales: map[string]string{"chat": "en-XA"}}, ch)
	return &env{b: b, st: st, ch: ch, clock: clk}
}

func boolp(v bool) *bool { return &v }

// localeQuestions asks a dialog (a colour of two options, no free text;
// a port from 1024 to 65535), a multi-select question and a free-text
// one.
func localeQuestions(t *testing.T, e *env) (dialog, multi, free *broker.Question) {
	dialog = e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which colour?", Options: []broker.Option{{Label: "Red"}, {Label: "Blue"}}, Other: boolp(false)},
		{Question: "Which port?", Header: "Port", Field: &broker.Field{Name: "port", Type: broker.FieldInteger, Title: "Port", Minimum: floatp(1024), Maximum: floatp(65535)}},
	}})
	multi = e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which regions?", Options: []broker.Option{{Label: "Europe"}, {Label: "Asia"}}, MultiSelect: true, Other: boolp(false)},
	}})
	free = e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{{Question: "Anything else?"}}})
	return dialog, multi, free
}

// refusalCase is one refused action and its German reply.
type refusalCase struct {
	name  string
	text  string
	files []broker.Attachment
	de    string
}

func refusalCases(d, m, f *broker.Question) []refusalCase {
	file := func(name, data string) broker.Attachment {
		return broker.Attachment{Name: name, Size: int64(len(data)), Data: []byte(data)}
	}
	eleven := make([]broker.Attachment, broker.MaxFilesPerAnswer+1)
	for k := range eleven {
		eleven[k] = file("a.txt", "hello")
	}
	return []refusalCase{
		// Refusals of an answer.
		{name: "not an option (number)", text: "/answer " + d.ID + ".1 7",
			de: "7 ist hier keine Option: Wählen Sie 1–2"},
		{name: "not an option (text)", text: "/answer " + d.ID + ".1 Green",
			de: `"Green" ist hier keine Option: Wählen Sie 1–2`},
		{name: "no free text", text: "/answer " + d.ID + ".1 other pink",
			de: "Freier Text ist hier nicht möglich: Wählen Sie 1–2"},
		{name: "no note", text: "/answer " + d.ID + ".1 1 other pink",
			de: "Notizen sind hier nicht möglich: Wählen Sie 1–2, ohne other <Text>"},
		{name: "one answer", text: "/answer " + d.ID + ".1 1,2",
			de: "Diese Frage erlaubt nur eine Antwort: Wählen Sie eine von 1–2"},
		{name: "field rule", text: "/answer " + d.ID + ".2 80",
			de: "Port: Bitte antworten Sie mit einer ganzen Zahl von 1024 bis 65535; nichts wurde erfasst."},
		{name: "no such prompt", text: "/answer " + d.ID + ".3 1",
			de: d.ID + " hat 2 Fragen: Verwenden Sie " + d.ID + ".1–" + d.ID + ".2"},
		{name: "single question numbered", text: "/answer " + f.ID + ".2 yes",
			de: f.ID + " hat nur eine Frage: Verwenden Sie /answer " + f.ID + " <Auswahl>"},
		{name: "command word", text: "/answer " + f.ID + " snooze",
			de: `"snooze" ist ein Befehl, keine Antwort: Für snooze auf ` + f.ID + " tippen Sie /snooze " + f.ID + " (bridge snooze " + f.ID + "); um mit dem Wort selbst zu antworten, tippen Sie /answer " + f.ID + " other snooze. Nichts wurde erfasst."},
		{name: "control character", text: "/answer " + f.ID + " Re\x01d",
			de: "Nichts wurde erfasst: Der Text enthält an Zeichen 3 ein Steuerzeichen (U+0001); erlaubt sind nur Zeilenumbruch und Tabulator."},
		// Files where none are taken, and files refused.
		{name: "files on options", text: "/answer " + d.ID + ".1 1", files: []broker.Attachment{file("a.txt", "hello")},
			de: "Dateien sind hier nicht möglich: Diese Frage erlaubt nur ihre Optionen. Nichts wurde erfasst."},
		{name: "files on a field", text: "/answer " + d.ID + ".2 8080", files: []broker.Attachment{file("a.txt", "hello")},
			de: "Dateien sind hier nicht möglich: Antworten Sie mit einer ganzen Zahl von 1024 bis 65535. Nichts wurde erfasst."},
		{name: "too many files", text: "/answer " + f.ID + " logs", files: eleven,
			de: "Das sind 11 Dateien; eine Antwort kann höchstens 10 enthalten. Nichts wurde erfasst."},
		{name: "empty file", text: "/answer " + f.ID + " logs", files: []broker.Attachment{file("a.txt", "")},
			de: "„a.txt“ ist leer. Nichts wurde erfasst."},
		{name: "file too large", text: "/answer " + f.ID + " logs", files: []broker.Attachment{{Name: "big.log", Size: 12 << 20}},
			de: "„big.log“ ist 12 MiB groß; jede Datei darf höchstens 10 MiB groß sein. Nichts wurde erfasst."},
		{name: "file type", text: "/answer " + f.ID + " logs", files: []broker.Attachment{file("", "\x00\x01\x02\x03binary")},
			de: "Diese Datei hat keinen hier angenommenen Dateityp (angenommen werden Bilder (PNG, JPEG, GIF, WebP), Text- und Logdateien sowie PDFs, bis 10 MiB je Datei und 25 MiB je Frage). Nichts wurde erfasst."},
		// /toggle.
		{name: "toggle a single answer", text: "/toggle " + d.ID + ".1 1",
			de: "Frage 1 von " + d.ID + " erlaubt nur eine Antwort, es gibt also nichts an- oder abzuwählen: Antworten Sie mit " + broker.FormatAnswer(d.Ref(0), "<Auswahl>") + "; nichts wurde geändert."},
		{name: "toggle no such option", text: "/toggle " + m.ID + " 3",
			de: "3 ist keine Option von Frage " + m.ID + ": Wählen Sie 1–2; nichts wurde geändert."},
		{name: "toggle no such prompt", text: "/toggle " + d.ID + ".3 1",
			de: d.ID + " hat 2 Fragen: Verwenden Sie " + d.ID + ".1–" + d.ID + ".2; nichts wurde geändert."},
		// Refused before any question is read.
		{name: "no id", text: "/answer", de: "/answer braucht eine Fragen-ID, z. B. /answer k7m2qx 2"},
		{name: "bad id", text: "/answer zz 1", de: `"zz" ist keine Fragen-ID (IDs haben 6 Zeichen, etwa k7m2qx)`},
		{name: "bad prompt number", text: "/answer " + d.ID + ".0 1", de: `"` + d.ID + `.0": Die Fragennummer nach dem Punkt muss zwischen 1 und 4 liegen`},
		{name: "no choice", text: "/answer " + d.ID, de: "/answer " + d.ID + " braucht eine Auswahl: eine Nummer wie 2, Nummern wie 1,3, die Bezeichnung einer Option, other <Text>, Nummern mit einer Notiz wie 1,3 other <Text> oder skip"},
		{name: "snooze with a prompt", text: "/snooze " + d.ID + ".1", de: "/snooze erwartet eine Fragen-ID ohne Fragennummer"},
		{name: "pending with a bad id", text: "/pending x", de: `/pending erwartet nichts oder eine Fragen-ID wie /pending k7m2qx; "x" ist keine Fragen-ID`},
		{name: "pending with more", text: "/pending " + d.ID + " now", de: "/pending erwartet eine Fragen-ID und nichts danach"},
		{name: "toggle without option", text: "/toggle " + m.ID, de: "/toggle " + m.ID + " braucht die Nummer einer Option, z. B. /toggle " + m.ID + " 2"},
		{name: "toggle a word", text: "/toggle " + m.ID + " two", de: "/toggle " + m.ID + ` erwartet die Nummer einer Option, 1–4, z. B. /toggle ` + m.ID + ` 2; nicht "two"`},
	}
}

// TestRefusalsInTheReadersLanguage: every kind of refused answer,
// toggle, file and command reads in German for a person whose locale is
// de, and entirely from the catalog in the pseudo-locale; nothing is
// recorded.
func TestRefusalsInTheReadersLanguage(t *testing.T) {
	e := newLocaleEnv(t)
	d, m, f := localeQuestions(t, e)
	ctx := context.Background()
	for _, c := range refusalCases(d, m, f) {
		t.Run(c.name, func(t *testing.T) {
			act := func(user string) broker.Reply {
				msg := in("c1", user, c.text)
				msg.Attachments = c.files
				return e.b.HandleInbound(ctx, msg)
			}
			if r := act("ana"); r.OK || r.Err == nil || r.Text != c.de {
				t.Errorf("German reply %q (ok=%v err=%v)\n                 want %q", r.Text, r.OK, r.Err, c.de)
			}
			r := act("xa")
			keep := []string{d.ID, m.ID, f.ID, "k7m2qx", "/answer", "/toggle", "/snooze", "/pending", "bridge", "snooze", "other", "skip",
				"Green", "pink", "zz", "two", "now", "a.txt", "big.log", "MiB"}
			if r.OK || !strings.HasPrefix(r.Text, "[") {
				t.Errorf("pseudo-locale reply %q (ok=%v)", r.Text, r.OK)
			}
			if words := i18ntest.Untranslated(r.Text, keep...); len(words) > 0 {
				t.Errorf("pseudo-locale reply %q has untranslated %q", r.Text, words)
			}
		})
	}
	for _, q := range []*broker.Question{d, m, f} {
		stored, err := e.st.Get(ctx, q.ID)
		if err != nil || stored.Status != broker.StatusPending || stored.ProgressCount() != 0 || len(stored.Selections[0]) != 0 {
			t.Errorf("a refusal changed %s: %+v (%v)", q.ID, stored, err)
		}
	}
}

// TestAnsweredPartRefusalsInGerman: an answered part of a dialog refuses
// a toggle in German; the toggle of a multi-select question says what is
// selected in German.
func TestAnsweredPartRefusalsInGerman(t *testing.T) {
	e := newLocaleEnv(t)
	d, m, _ := localeQuestions(t, e)
	ctx := context.Background()
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+d.ID+".1 1")); !r.OK {
		t.Fatalf("answer: %+v", r)
	}
	for _, c := range []struct{ text, want string }{
		{"/toggle " + d.ID + ".1 1", "Frage 1 von " + d.ID + " hat schon eine Antwort; nichts wurde geändert."},
		{"/toggle " + m.ID + " 2", "Ausgewählt: Asia."},
		{"/toggle " + m.ID + " 2", "Nichts ausgewählt."},
	} {
		if r := e.b.HandleInbound(ctx, in("c1", "ana", c.text)); r.Text != c.want {
			t.Errorf("%s: %q, want %q", c.text, r.Text, c.want)
		}
	}
}

// TestPendingInTheReadersLanguage: /pending lists the open questions in
// Japanese for a person whose locale is ja, with each card's state line
// in Japanese; the empty list and one question as it stands too; and
// entirely from the catalog in the pseudo-locale.
func TestPendingInTheReadersLanguage(t *testing.T) {
	e := newLocaleEnv(t)
	d, m, f := localeQuestions(t, e)
	ctx := context.Background()
	state := func(q *broker.Question, locale string) string {
		return broker.BuildCard(q, broker.Viewer{Now: e.clock.Now(), Loc: time.UTC, Locale: locale}).StateLine()
	}
	r := e.b.HandleInbound(ctx, in("c1", "bo", "/pending"))
	want := "回答待ちの質問 3 件:"
	// Newest first.
	for _, q := range []*broker.Question{f, m, d} {
		want += "\n" + q.ID + ": " + q.Prompts[0].Question + "（" + state(q, "ja") + "）"
	}
	if !r.OK || r.Text != want || !strings.Contains(want, "UTC") {
		t.Errorf("Bo's /pending:\n%s\nwant:\n%s", r.Text, want)
	}
	if r := e.b.HandleInbound(ctx, in("c9", "bo", "/pending")); !r.OK || r.Text != "ここには回答待ちの質問はありません。" {
		t.Errorf("Bo's /pending where nothing is open: %+v", r)
	}
	r = e.b.HandleInbound(ctx, in("c1", "bo", "/pending "+d.ID))
	if want := d.ID + ": Which colour?（" + state(d, "ja") + "）\n現在の質問 1 / 2: Which colour?"; !r.OK || r.Text != want {
		t.Errorf("Bo's /pending %s: %q, want %q", d.ID, r.Text, want)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/pending")); !strings.HasPrefix(r.Text, "3 offene Fragen:\n"+f.ID+": Anything else? (Läuft ab ") {
		t.Errorf("Ana's /pending: %q", r.Text)
	}
	keep := []string{d.ID, m.ID, f.ID, "Which colour?", "Which regions?", "Anything else?", "UTC"}
	for _, c := range []struct{ chat, user, text string }{
		{"c1", "xa", "/pending"},
		{"c9", "xa", "/pending"},
		{"c1", "xa", "/pending " + d.ID},
		// No person: the channel's language.
		{"c1", "zed", "/pending"},
		{"c1", "zed", "/answer"},
	} {
		r := e.b.HandleInbound(ctx, in(c.chat, c.user, c.text))
		if !strings.HasPrefix(r.Text, "[") {
			t.Errorf("%s by %s in the pseudo-locale: %q", c.text, c.user, r.Text)
		}
		if words := i18ntest.Untranslated(r.Text, keep...); len(words) > 0 {
			t.Errorf("%s by %s: %q has untranslated %q", c.text, c.user, r.Text, words)
		}
	}
}

// TestBareAnswerRefusalsInGerman: text in a private chat with no open
// question, or several, is refused in the person's language, the
// several listed.
func TestBareAnswerRefusalsInGerman(t *testing.T) {
	e := newLocaleEnv(t)
	ctx := context.Background()
	dm := func(chat string) broker.Inbound {
		m := in(chat, "ana", "Red")
		m.Private = true
		return m
	}
	if r := e.b.HandleInbound(ctx, dm("c9")); r.OK || r.Text != "Hier ist keine Frage offen." {
		t.Errorf("nothing open: %+v", r)
	}
	_, _, f := localeQuestions(t, e)
	r := e.b.HandleInbound(ctx, dm("c1"))
	if want := "Hier sind mehrere Fragen offen; antworten Sie auf eine oder tippen Sie /answer <ID> <Auswahl>:\n" + f.ID + ": Anything else? (Läuft ab "; r.OK || !strings.HasPrefix(r.Text, want) {
		t.Errorf("several open: %q, want it to start %q", r.Text, want)
	}
}

// TestEnglishTextsMatchTheCatalog: the English texts the API and the
// docs name (the accepted files, the session replies) are the catalog's
// English, so that an English reader and an API caller read the same.
func TestEnglishTextsMatchTheCatalog(t *testing.T) {
	en := i18n.For(i18n.English)
	for id, want := range map[string]string{
		"answer.file_rule":             broker.FileRule,
		"answer.session_sent":          broker.SentToSession,
		"answer.session_not_connected": broker.SessionNotConnected,
		"text.shortened":               broker.ShortenedMark,
	} {
		if got := en.T(id); got != want {
			t.Errorf("%s is %q in the catalog, %q in the broker", id, got, want)
		}
	}
}
