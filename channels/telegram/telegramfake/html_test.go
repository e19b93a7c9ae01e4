package telegramfake

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseHTML(t *testing.T) {
	tests := []struct {
		in    string
		plain string
		ents  []Entity
		err   string
	}{
		{in: "plain & simple > x", plain: "plain & simple > x"},
		{in: "<b>Hi</b> &lt;b&gt; &amp;amp; &#128640;", plain: "Hi <b> &amp; 🚀", ents: []Entity{{Type: "bold", Offset: 0, Length: 2}}},
		{in: "🚀<i>x</i>", plain: "🚀x", ents: []Entity{{Type: "italic", Offset: 2, Length: 1}}},
		{in: `<a href="tg://user?id=1">Ana</a>`, plain: "Ana", ents: []Entity{{Type: "text_link", Offset: 0, Length: 3, URL: "tg://user?id=1"}}},
		{in: "a <table> b", err: `Unsupported start tag "table" at byte offset 2`},
		{in: "<b>open", err: `Can't find end tag corresponding to start tag "b"`},
		{in: "x</b>", err: "Unexpected end tag at byte offset 1"},
		{in: "a < b", err: "Unclosed start tag at byte offset 2"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			plain, ents, err := parseHTML(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "Bad Request: can't parse entities: ") {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || plain != tt.plain || !reflect.DeepEqual(ents, tt.ents) {
				t.Errorf("got %q %+v %v, want %q %+v", plain, ents, err, tt.plain, tt.ents)
			}
		})
	}
}
