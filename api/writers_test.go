package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
	for _, p := range []pendingBody{
		{ID: "k7m2qx", Status: broker.StatusPending, ExpiresAt: time.Date(2026, 3, 2, 14, 30, 0, 123456789, time.UTC)},
		{ID: odd, Status: broker.StatusPending, ExpiresAt: time.Date(2026, 3, 2, 14, 30, 0, 0, time.FixedZone("IST", 5*3600+30*60)), Snoozes: 3},
	} {
		t.Run("pending/"+p.ID, func(t *testing.T) {
			q := &broker.Question{ID: p.ID, Status: p.Status, ExpiresAt: p.ExpiresAt, State: broker.PolicyState{Snoozes: make([]broker.Snooze, p.Snoozes)}}
			wc, wt, want := record(func(w http.ResponseWriter) { writeJSON(w, http.StatusAccepted, p) })
			gc, gt, got := record(func(w http.ResponseWriter) { writeAsked(t.Context(), w, q) })
			if gc != wc || gt != wt || got != want {
				t.Errorf("writeAsked wrote %d %q\n%s\nwant %d %q\n%s", gc, gt, got, wc, wt, want)
			}
		})
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
		"view": func(w http.ResponseWriter) { writeView(w, questionView{Result: res, Copies: benchCopies()}) },
		"command": func(w http.ResponseWriter) {
			writeCommandResponse(w, http.StatusOK, CommandResponse{OK: true, Reply: "Recorded", Question: &res})
		},
	} {
		rec := httptest.NewRecorder()
		write(rec)
		if body := rec.Body.String(); rec.Code != http.StatusInternalServerError || !strings.Contains(body, "year outside of range") || !strings.Contains(body, `"internal"`) {
			t.Errorf("%s: %d %s, want a 500 naming the year", name, rec.Code, body)
		}
	}
}
