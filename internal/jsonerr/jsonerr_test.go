package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

type option struct {
	Label string `json:"label"`
}

type prompt struct {
	Question string   `json:"question"`
	Options  []option `json:"options"`
	Multi    bool     `json:"multi_select"`
}

type embedded struct {
	Route string `json:"route"`
}

type request struct {
	embedded
	Questions []prompt         `json:"questions"`
	Limit     int              `json:"limit"`
	Weights   []float64        `json:"weights"`
	Labels    map[string]int   `json:"labels"`
	Raw       json.RawMessage  `json:"raw"`
	Any       any              `json:"any"`
	Ptr       *prompt          `json:"ptr"`
	Tags      []string         `json:"tags"`
	Nested    map[string][]int `json:"nested"`
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		body, field, msg string
		malformed        bool
	}{
		{`{"questions":"x"}`, "questions", "questions: must be a list of questions, got a string", false},
		{`{"questions":[{"question":"a"},{"question":true}]}`, "questions[1].question", "questions[1].question: must be a string, got true", false},
		{`{"questions":[{"options":[{"label":"a","x":1}]}]}`, "questions[0].options[0].x", "unknown field questions[0].options[0].x", false},
		{`{"questions":[{"multi_select":"yes"}]}`, "questions[0].multi_select", "questions[0].multi_select: must be true or false, got a string", false},
		{`{"limit":1.5}`, "limit", "limit: must be a whole number, got the number 1.5", false},
		{`{"weights":{}}`, "weights", "weights: must be a list of numbers, got an object", false},
		{`{"labels":{"a":"b"}}`, "labels.a", "labels.a: must be a whole number, got a string", false},
		{`{"route":5}`, "route", "route: must be a string, got the number 5", false},
		{`{"ptr":[]}`, "ptr", "ptr: must be an object, got a list", false},
		{`{"tags":[1]}`, "tags[0]", "tags[0]: must be a string, got the number 1", false},
		{`{"nested":{"k":[1,"2"]}}`, "nested.k[1]", "nested.k[1]: must be a whole number, got a string", false},
		{`{"colour":"red"}`, "colour", "unknown field colour", false},
		{`"hi"`, "", "the body must be a JSON object, got a string", false},
		{`{"limit":`, "", "the body ends before its JSON is complete", true},
		{``, "", "the body is empty; send a JSON object", true},
		{`{"limit":1} {}`, "", "the body must hold one JSON object and nothing after it", true},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			var v request
			dec := json.NewDecoder(bytes.NewReader([]byte(tt.body)))
			dec.DisallowUnknownFields()
			err := dec.Decode(&v)
			if err == nil && dec.More() {
				err = errTrailing
			}
			if err == nil {
				t.Fatal("the body decoded")
			}
			p := Describe("the body", []byte(tt.body), &v, err)
			if p.Field != tt.field || p.Message != tt.msg || p.Malformed != tt.malformed {
				t.Fatalf("got %+v, want field %q message %q malformed %v", p, tt.field, tt.msg, tt.malformed)
			}
		})
	}
}

var errTrailing = errors.New("unexpected data after the JSON object")
