package api

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// fieldBodies are asks with typed fields that the fast path takes, to
// the values encoding/json gives.
var fieldBodies = []string{
	`{"question":"Which port?","field":{"name":"port","type":"integer","title":"Port","minimum":1024,"maximum":65535,"default":8080}}`,
	`{"questions":[{"question":"Email?","field":{"type":"string","format":"email","min_length":3,"max_length":80,"default":"ana@example.com","description":"for the report"}},` +
		`{"question":"Regions?","field":{"type":"multi_enum","choices":[{"value":"eu","title":"Europe"},{"value":"us"}],"min_items":1,"max_items":2,"default":[ "eu" , "us" ]}},` +
		`{"question":"Deploy?","field":{"type":"boolean","default":false}},{"question":"Ratio?","field":{"type":"number","minimum":-0.5,"maximum":1e3,"default":0.25}}]}`,
	`{"question":"Level?","field":{"type":"enum","choices":[],"default":"lo"}}`,
}

// fieldDeclines are asks with fields the fast path leaves to
// encoding/json.
var fieldDeclines = []string{
	`{"question":"q","field":{"type":"integer","default":null}}`,
	`{"question":"q","field":{"type":"integer","min_length":1.5}}`,
	`{"question":"q","field":{"type":"integer","max_items":1e2}}`,
	`{"question":"q","field":{"type":"integer","minimum":1e400}}`,
	`{"question":"q","field":{"type":"integer","bogus":1}}`,
	`{"question":"q","field":{"type":"integer","default":{"a":1}}}`,
	`{"question":"q","field":{"type":"integer","default":[1,2]}}`,
	`{"question":"q","field":{"type":"enum","choices":[{"value":"a","extra":"b"}]}}`,
	`{"question":"q","field":{"type":"integer","type":"number"}}`,
	`{"question":"q","field":null}`,
	`{"question":"q","field":{"type":"string","default":"a\"b"}}`,
}

func TestFastDecodeFields(t *testing.T) {
	for _, body := range fieldBodies {
		if !sameDecode[broker.AskRequest](t, []byte(body)) {
			t.Errorf("the fast path declined %s", body)
		}
	}
	for _, body := range fieldDeclines {
		if sameDecode[broker.AskRequest](t, []byte(body)) {
			t.Errorf("the fast path took %s", body)
		}
	}
	var req broker.AskRequest
	if !fastDecode([]byte(fieldBodies[0]), &req) || req.Field == nil || req.Field.Default.String() != "8080" || *req.Field.Maximum != 65535 {
		t.Fatalf("the shortcut's field read as %+v", req.Field)
	}
}

// FuzzFastDecodeFields is FuzzFastDecode from asks with typed fields.
func FuzzFastDecodeFields(f *testing.F) {
	for _, body := range append(fieldBodies, fieldDeclines...) {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode[broker.AskRequest](t, data)
	})
}
