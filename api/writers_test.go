package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestWritersMatchWriteJSON checks that the answers written in one pass
// are, byte for byte, what writeJSON writes for the same values: with
// text that JSON escapes (HTML characters, line separators, quotes),
// with voters, and without a question.
func TestWritersMatchWriteJSON(t *testing.T) {
	odd := "<b>a & b</b> \"quoted\" \u2028 line\tand é"
	plain := benchResult()
	tricky := benchResult()
	tricky.Questions[0].Question = odd
	tricky.Questions[0].Options[1].Description = odd
	tricky.Answers = map[string]broker.Answer{odd: {Selected: []string{odd}, CustomText: odd}}
	tricky.Reason = odd
	voted := benchResult()
	voted.Voters = []broker.Responder{{Channel: "slack", User: "U1", Name: "ana <a>"}, {Channel: "slack", User: "U2", Name: "bo"}}
	copies := benchCopies()
	copies[0].LastError = odd

	record := func(write func(w http.ResponseWriter)) (int, string, string) {
		rec := httptest.NewRecorder()
		write(rec)
		return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
	}
	for _, tc := range []struct {
		name string
		res  broker.Result
	}{{"plain", plain}, {"escaped text", tricky}, {"voters", voted}} {
		t.Run("view/"+tc.name, func(t *testing.T) {
			v := questionView{Result: tc.res, Copies: copies}
			wc, wt, want := record(func(w http.ResponseWriter) { writeJSON(w, http.StatusOK, v) })
			gc, gt, got := record(func(w http.ResponseWriter) { writeView(w, v) })
			if gc != wc || gt != wt || got != want {
				t.Errorf("writeView wrote %d %q\n%s\nwant %d %q\n%s", gc, gt, got, wc, wt, want)
			}
		})
		for _, out := range []CommandResponse{
			{OK: true, Reply: "Recorded: " + odd, Question: &tc.res},
			{OK: false, Reply: odd, Question: &tc.res},
			{OK: false, Reply: odd},
		} {
			t.Run("command/"+tc.name, func(t *testing.T) {
				wc, wt, want := record(func(w http.ResponseWriter) { writeJSON(w, http.StatusConflict, out) })
				gc, gt, got := record(func(w http.ResponseWriter) { writeCommandResponse(w, http.StatusConflict, out) })
				if gc != wc || gt != wt || got != want {
					t.Errorf("writeCommandResponse wrote %d %q\n%s\nwant %d %q\n%s", gc, gt, got, wc, wt, want)
				}
			})
		}
	}
}
