package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/testutil"
)

// slowDecode is what decode does without the fast path: encoding/json
// with DisallowUnknownFields, and nothing after the value.
func slowDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

// sameDecode checks that when the fast path takes data, encoding/json
// takes it too, to the same value. It reports whether the fast path took
// it.
func sameDecode[T any](t *testing.T, data []byte) bool {
	t.Helper()
	var fast, slow T
	if !fastDecode(data, &fast) {
		var zero T
		if !reflect.DeepEqual(fast, zero) {
			t.Fatalf("the fast path declined %s and still changed the value: %#v", data, fast)
		}
		return false
	}
	if err := slowDecode(data, &slow); err != nil {
		t.Fatalf("the fast path took %s, which encoding/json refuses: %v", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s decodes differently\nfast: %#v\nslow: %#v", data, fast, slow)
	}
	return true
}

// plainText are strings the fast path takes: no escapes, valid UTF-8,
// with the HTML characters and punctuation JSON leaves as they are.
var plainText = []string{
	"", "plain", "Which database should the service use?", "é 漢字 🙂", "<b>a & b</b>",
	"it's / fine", "\uFFFD given", "12:30; ok", "ends in space ", "`",
}

// TestFastDecodeMatchesEncodingJSON decodes asks and commands filled at
// random, written by json.Marshal compact and indented, both ways: the
// fast path must decline or give what encoding/json gives. With plain
// text and no policy it must take most of them; with text that needs
// escapes it must decline or agree.
func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name    string
		strs    []string
		minTook float64
	}{{"plain text", plainText, 0.5}, {"awkward text", nil, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			f := testutil.NewFiller(13, 14)
			f.Strings = tc.strs
			took, n := 0, 0
			for i := range 5000 {
				var ask broker.AskRequest
				f.Fill(&ask)
				if tc.strs != nil && i%4 != 0 {
					ask.Policy = nil
				}
				var cmd CommandRequest
				f.Fill(&cmd)
				for _, v := range []any{ask, cmd} {
					data, err := json.Marshal(v)
					if err != nil {
						continue // a duration encoding/json cannot write back
					}
					// As json.Marshal writes it, indented, and without
					// HTML escapes, as most clients write it.
					var indented, unescaped bytes.Buffer
					_ = json.Indent(&indented, data, "", "\t")
					enc := json.NewEncoder(&unescaped)
					enc.SetEscapeHTML(false)
					_ = enc.Encode(v)
					for _, d := range [][]byte{data, indented.Bytes(), unescaped.Bytes()} {
						n++
						var ok bool
						if _, isAsk := v.(broker.AskRequest); isAsk {
							ok = sameDecode[broker.AskRequest](t, d)
						} else {
							ok = sameDecode[CommandRequest](t, d)
						}
						if ok {
							took++
						}
					}
				}
			}
			if share := float64(took) / float64(n); share < tc.minTook {
				t.Fatalf("the fast path took %d of %d bodies (%.0f %%), want at least %.0f %%", took, n, 100*share, 100*tc.minTook)
			}
		})
	}
}

// fastDeclines are bodies the fast path leaves to encoding/json, which
// refuses some and takes others its own way.
var fastDeclines = []string{
	`null`, `[]`, `"x"`, `{"session_id":null}`, `{"Session_ID":"s"}`, `{"session_id":"a","session_id":"b"}`,
	`{"question":"a \"quoted\" b"}`, `{"question":"line\nbreak"}`, "{\"question\":\"raw\ttab\"}",
	`{"question":"\u00e9"}`, "{\"question\":\"bad \xff\"}", `{"policy":{"quorum":2}}`, `{"x":1}`,
	`{} {}`, `{}x`, `{}}`, `{"reminders":[01]}`, `{"reminders":[1.]}`, `{"reminders":[1e400]}`,
	`{"reminders":[-]}`, `{"wait":"soon"}`, `{"wait":1e300}`, `{"wait":true}`, `{"multi_select":tru}`,
	`{"multi_select":"true"}`, `{"question":"a",}`, `{"options":[{"label":"a","bogus":1}]}`,
	`{"options":[{"label":"a"},]}`, `{"questions":[{"question":"q","default":[1]}]}`, `{"default":null}`,
	`{"other":null}`, `{"text":"x"`, `{"text":"x"` + "\x00}", `{"responders":["a",null]}`,
}

// TestFastDecodeDeclines checks that the fast path declines what it
// cannot decode exactly as encoding/json, and leaves the value alone.
func TestFastDecodeDeclines(t *testing.T) {
	for _, body := range fastDeclines {
		if sameDecode[broker.AskRequest](t, []byte(body)) {
			t.Errorf("the fast path took %s as an ask", body)
		}
		if sameDecode[CommandRequest](t, []byte(body)) {
			t.Errorf("the fast path took %s as a command", body)
		}
	}
}

// TestFastDecodeTakesTheCycle checks that the bodies of the commonest
// cycle, an ask with a shortcut question and a timeout, one with a dialog,
// and an answer command, take the fast path.
func TestFastDecodeTakesTheCycle(t *testing.T) {
	for _, body := range []string{
		`{"session_id":"s1","tool_call_id":"c1","question":"Which database should the service use?","header":"Database",` +
			`"options":[{"label":"Postgres","description":"relational, needs a server"},{"label":"SQLite (Recommended)"}],"wait":"0s","timeout":"7d","lease":90}`,
		`{ "questions": [ { "question": "Deploy now?", "options": [ { "label": "Yes" }, { "label": "No", "action": "end_turn" } ], "multi_select": false, "other": false, "default": "No" },
		  { "question": "Which regions?", "multi_select": true, "default": ["eu", "us"] } ], "reminders": [0.5, 0.9], "responders": ["ana"], "route": "ops", "context": "é" }`,
	} {
		if !sameDecode[broker.AskRequest](t, []byte(body)) {
			t.Errorf("the fast path declined the ask %s", body)
		}
	}
	if !sameDecode[CommandRequest](t, []byte(`{"channel":"cli","chat":"","user":"ana","text":"/answer k7m2qx 2"}`)) {
		t.Error("the fast path declined an answer command")
	}
}

// FuzzFastDecode checks, over any bytes, that what the fast path takes
// encoding/json takes to the same value.
func FuzzFastDecode(f *testing.F) {
	for _, body := range fastDeclines {
		f.Add([]byte(body))
	}
	f.Add([]byte(`{"session_id":"s","questions":[{"question":"q","options":[{"label":"a"}],"other":true,"default":"a"}],"timeout":30,"reminders":[0.5]}`))
	f.Add([]byte(`{"channel":"cli","text":"/answer k7m2qx 2"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode[broker.AskRequest](t, data)
		sameDecode[CommandRequest](t, data)
	})
}

// BenchmarkDecodeAsk is the body of the load tool's ask, by encoding/json
// and by the fast path.
func BenchmarkDecodeAsk(b *testing.B) {
	body := []byte(`{"header":"Database","options":[{"description":"relational, needs a server","label":"Postgres"},` +
		`{"description":"embedded, one file","label":"SQLite"},{"description":"relational, needs a server","label":"MySQL"},` +
		`{"description":"in memory, persistence optional","label":"Redis"}],"question":"Which database should the service use?",` +
		`"session_id":"bench-7","tool_call_id":"call-123456","wait":"0s"}`)
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var req broker.AskRequest
			if err := slowDecode(body, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var req broker.AskRequest
			if !fastDecode(body, &req) {
				b.Fatal("declined")
			}
		}
	})
}
