package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// decodeBody runs decode on body as a request to the API, and returns
// the status and the error's code, message and field when it refused it.
func decodeBody(t testing.TB, body []byte, v any) (status int, e errorDetail) {
	t.Helper()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/v1/questions", strings.NewReader(string(body)))
	if !decode(rec, r, 64<<10, v) {
		return 0, errorDetail{}
	}
	var out errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("decode of %q answered %d with a body that is not an error: %s", body, rec.Code, rec.Body)
	}
	return rec.Code, out.Error
}

// TestDecodeAcceptsWhatEncodingJSONReads checks the bodies an agent may
// send in forms other than the plain one: keys in another case, a key
// given twice (the last one counts), null for a value, spacing, escapes.
func TestDecodeAcceptsWhatEncodingJSONReads(t *testing.T) {
	sevenDays := broker.Duration(7 * 24 * time.Hour)
	for _, tc := range []struct {
		name, body string
		check      func(r *broker.AskRequest) bool
	}{
		{"key twice", `{"question":"a","question":"b"}`, func(r *broker.AskRequest) bool { return r.Question == "b" }},
		{"key in another case", `{"Question":"a","MULTI_SELECT":true}`, func(r *broker.AskRequest) bool { return r.Question == "a" && r.MultiSelect }},
		{"null default", `{"question":"a","default":null}`, func(r *broker.AskRequest) bool { return r.Question == "a" && r.Default == nil }},
		{"escapes", `{"question":"a \"b\" \u00e9\n"}`, func(r *broker.AskRequest) bool { return r.Question == "a \"b\" é\n" }},
		{"durations", `{ "question" : "a", "timeout": "7d", "lease": 90, "wait": "0s" }`, func(r *broker.AskRequest) bool {
			return *r.Timeout == sevenDays && time.Duration(*r.Lease) == 90*time.Second && *r.Wait == 0
		}},
		{"typed field", `{"question":"Which port?","field":{"name":"port","type":"integer","minimum":1024,"maximum":65535,"default":8080}}`,
			func(r *broker.AskRequest) bool {
				return r.Field != nil && r.Field.Default.String() == "8080" && *r.Field.Maximum == 65535 && r.Field.Type == broker.FieldInteger
			}},
		{"dialog", `{"questions":[{"question":"Deploy now?","options":[{"label":"Yes"},{"label":"No","action":"end_turn"}],"default":"No"},` +
			`{"question":"Which regions?","multi_select":true,"default":["eu","us"]}],"reminders":[0.5,0.9],"responders":["ana"]}`,
			func(r *broker.AskRequest) bool {
				return len(r.Questions) == 2 && r.Questions[0].Options[1].Action == "end_turn" &&
					strings.Join(r.Questions[1].Default, ",") == "eu,us" && len(r.Reminders) == 2 && r.Responders[0] == "ana"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req broker.AskRequest
			if status, e := decodeBody(t, []byte(tc.body), &req); status != 0 {
				t.Fatalf("refused %s: %d %+v", tc.body, status, e)
			}
			if !tc.check(&req) {
				t.Fatalf("%s read as %+v", tc.body, req)
			}
		})
	}
}

// TestDecodeRefusesBadBodies checks that a body encoding/json cannot
// read into the request, or that holds a key the request does not have,
// is a 400 whose message and field name the problem.
func TestDecodeRefusesBadBodies(t *testing.T) {
	for _, tc := range []struct{ body, field, says string }{
		{`{"text":"x"`, "", "ends before its JSON is complete"},
		{`{"question":"a",}`, "", "not valid JSON"},
		{`{"multi_select":tru}`, "", "not valid JSON"},
		{`{"question":"a"} {"question":"b"}`, "", "nothing after it"},
		{`{"wait":"soon"}`, "wait", `"soon" is not a duration`},
		{`{"multi_select":"true"}`, "multi_select", "must be true or false, got a string"},
		{`{"options":[{"label":"a","bogus":1}]}`, "options[0].bogus", "unknown field options[0].bogus"},
		{`{"question":"q","field":{"type":"integer","min_length":1.5}}`, "field.min_length", "whole number"},
		{`{"question":"q","field":{"type":"integer","bogus":1}}`, "field.bogus", "unknown field"},
		{`{"questions":[{"question":"q","default":[1]}]}`, "questions[0].default", "must be a string or a list of strings"},
		{"{\"question\":\"a\xffb\"}", "question", "UTF-8"},
	} {
		t.Run(tc.body, func(t *testing.T) {
			var req broker.AskRequest
			status, e := decodeBody(t, []byte(tc.body), &req)
			if status != http.StatusBadRequest || e.Field != tc.field || !strings.Contains(e.Message, tc.says) {
				t.Fatalf("%s: %d %+v, want 400 on %q saying …%s…", tc.body, status, e, tc.field, tc.says)
			}
		})
	}
}

// FuzzDecode checks, over any bytes, that decode either reads an ask or
// a command or refuses it with a 400 that says what is wrong, in the
// words of the API rather than of the JSON decoder.
func FuzzDecode(f *testing.F) {
	for _, body := range []string{
		`{"session_id":"s","questions":[{"question":"q","options":[{"label":"a"}],"other":true,"default":"a"}],"timeout":30,"reminders":[0.5]}`,
		`{"channel":"cli","text":"/answer k7m2qx 2"}`, `{"question":"q","field":{"type":"integer","default":8080}}`,
		`{"wait":1e300}`, `{"other":null}`, `{"responders":["a",null]}`, `[1]`, `{`, "",
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []any{new(broker.AskRequest), new(CommandRequest)} {
			status, e := decodeBody(t, data, v)
			if status == 0 {
				continue
			}
			if status != http.StatusBadRequest || (e.Code != "invalid" && e.Code != "malformed") || e.Message == "" {
				t.Fatalf("%q: %d %+v, want a 400 that names the problem", data, status, e)
			}
			if strings.Contains(e.Message, "json:") || strings.Contains(e.Message, "broker.") {
				t.Fatalf("%q: the message %q speaks of the decoder, not the request", data, e.Message)
			}
		}
	})
}
