package api

import "testing"

func TestInvalidUTF8NamesTheField(t *testing.T) {
	tests := []struct{ body, field string }{
		{`{"question":"a` + "\xff" + `"}`, "question"},
		{`{"question":"ok","context":"` + "\xfe" + `"}`, "context"},
		{`{"questions":[{"question":"a","options":[{"label":"x"},{"label":"y","description":"` + "\xc0" + `"}]}]}`, "questions[0].options[1].description"},
		{`{"questions":[{"question":"a"},{"question":"b","default":["x","` + "\xff" + `"]}]}`, "questions[1].default[1]"},
		{`{"responders":["a","b"],"reminders":[0.5],"nested":{"deep":[[1,"` + "\xff" + `"]]}}`, "nested.deep[0][1]"},
		{`{"k` + "\xff" + `":"v"}`, "k\uFFFD"},
	}
	for _, tt := range tests {
		msg, field := invalidUTF8([]byte(tt.body))
		if field != tt.field || msg == "" {
			t.Errorf("%q: field %q (%s), want %q", tt.body, field, msg, tt.field)
		}
	}
	if msg, _ := invalidUTF8([]byte(`{"question":"ünïcödé ✓"}`)); msg != "" {
		t.Errorf("valid UTF-8 refused: %s", msg)
	}
}
