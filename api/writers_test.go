package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestWritersRefuseWhatJSONCannotSay checks that an answer holding a
// time JSON cannot carry is a 500 that names the problem, not a 2xx with
// a broken body.
func TestWritersRefuseWhatJSONCannotSay(t *testing.T) {
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	res := benchResult()
	res.ExpiresAt = far
	for name, write := range map[string]func(http.ResponseWriter){
		"pending": func(w http.ResponseWriter) {
			writeAsked(t.Context(), w, &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, ExpiresAt: far})
		},
		"view": func(w http.ResponseWriter) {
			writeJSON(w, http.StatusOK, questionView{Result: res, Copies: benchCopies()})
		},
		"command": func(w http.ResponseWriter) {
			writeJSON(w, http.StatusOK, CommandResponse{OK: true, Reply: "Recorded", Question: &res})
		},
	} {
		rec := httptest.NewRecorder()
		write(rec)
		if body := rec.Body.String(); rec.Code != http.StatusInternalServerError || !strings.Contains(body, "year outside of range") || !strings.Contains(body, `"internal"`) {
			t.Errorf("%s: %d %s, want a 500 naming the year", name, rec.Code, body)
		}
	}
}

// TestQuestionViewJSON checks that a question's view is its result's
// JSON, voters included, with its copies added as one more key.
func TestQuestionViewJSON(t *testing.T) {
	res := benchResult()
	res.Voters = []broker.Responder{{Channel: "slack", User: "U1", Name: "ana <a>"}, {Channel: "slack", User: "U2", Name: "bo"}}
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, questionView{Result: res, Copies: benchCopies()})
	var got broker.Result
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, rec.Body)
	}
	var copies struct {
		Copies []broker.Copy `json:"copies"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &copies); err != nil {
		t.Fatalf("%v\n%s", err, rec.Body)
	}
	if got.ID != res.ID || got.Status != res.Status || len(got.Voters) != 2 || got.Voters[0].Name != "ana <a>" {
		t.Errorf("the view's result reads back as %+v\n%s", got, rec.Body)
	}
	if len(copies.Copies) != 2 || copies.Copies[1].Target.Channel != "web" || copies.Copies[0].Edit != "done" {
		t.Errorf("the view's copies read back as %+v\n%s", copies.Copies, rec.Body)
	}
}

// TestWriteJSONMatchesEncoder checks that the answers writeJSON writes
// from their own MarshalJSON (a question's view, a result) are the bytes
// an Encoder without HTML escaping writes for them: text that JSON
// escapes, voters, copies.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	odd := "<b>a & b</b> \"quoted\" \u2028 line\tand é \xff"
	tricky := benchResult()
	tricky.Questions[0].Question = odd
	tricky.Questions[0].Options[1].Description = odd
	tricky.Answers = map[string]broker.Answer{odd: {Selected: []string{odd}, CustomText: odd}}
	tricky.Reason = odd
	voted := benchResult()
	voted.Voters = []broker.Responder{{Channel: "slack", User: "U1", Name: "ana <a>"}, {Channel: "slack", User: "U2", Name: "bo"}}
	copies := benchCopies()
	copies[0].LastError = odd
	for name, v := range map[string]any{
		"result": benchResult(), "escaped result": tricky, "voted result": voted, "empty result": broker.Result{},
		"view": questionView{Result: tricky, Copies: copies}, "voted view": questionView{Result: voted},
		"empty view": questionView{},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rec := httptest.NewRecorder()
		writeJSON(rec, http.StatusOK, v)
		if rec.Code != http.StatusOK || rec.Body.String() != want.String() {
			t.Errorf("%s: writeJSON wrote %d\n%s\nan Encoder writes\n%s", name, rec.Code, rec.Body, want.Bytes())
		}
	}
}
