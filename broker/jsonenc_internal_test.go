package broker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
)

// sameJSON checks that got and want are the same bytes, or both errors.
func sameJSON(t *testing.T, what string, v any, got []byte, gotErr error, want []byte, wantErr error) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, encoding/json's %v\nvalue: %#v", what, gotErr, wantErr, v)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from encoding/json\n got: %s\nwant: %s\nvalue: %#v", what, got, want, v)
	}
}

// TestQuestionJSONMatchesEncodingJSON checks that EncodeQuestion writes
// byte for byte what json.Marshal writes, over questions filled at
// random in every field.
func TestQuestionJSONMatchesEncodingJSON(t *testing.T) {
	f := testutil.NewFiller(1, 2)
	for i := range 20000 {
		var q Question
		f.Fill(&q)
		got, gotErr := EncodeQuestion(&q)
		want, wantErr := json.Marshal(&q)
		sameJSON(t, fmt.Sprintf("question %d", i), q, got, gotErr, want, wantErr)
		// AppendQuestion writes the same after what the buffer holds,
		// and leaves it as it was when it fails.
		prefix := []byte("kept")
		appended, appendErr := AppendQuestion(prefix, &q)
		if appendErr != nil {
			if !bytes.Equal(appended, prefix) {
				t.Fatalf("question %d: a failed AppendQuestion gave %q, want the buffer as it was", i, appended)
			}
			appended = prefix
		}
		sameJSON(t, fmt.Sprintf("appended question %d", i), q, appended[len(prefix):], appendErr, want, wantErr)
	}
}

// TestResultJSONMatchesEncodingJSON is the same for a result, with and
// without voters, whose array takes the place of answered_by.
func TestResultJSONMatchesEncodingJSON(t *testing.T) {
	type plain Result
	f := testutil.NewFiller(3, 4)
	for i := range 20000 {
		var r Result
		f.Fill(&r)
		got, gotErr := json.Marshal(r)
		var want []byte
		var wantErr error
		if len(r.Voters) == 0 {
			want, wantErr = json.Marshal(plain(r))
		} else {
			want, wantErr = json.Marshal(struct {
				plain
				AnsweredBy []Responder `json:"answered_by"`
			}{plain(r), r.Voters})
		}
		sameJSON(t, fmt.Sprintf("result %d", i), r, got, gotErr, want, wantErr)
	}
}

// TestQuestionJSONRoundTrip checks that a question written by the
// hand-written encoder reads back as itself (times compared as
// instants: the monotonic reading and the zone's name do not survive
// JSON, as with encoding/json).
func TestQuestionJSONRoundTrip(t *testing.T) {
	f := testutil.NewFiller(5, 6)
	for i := range 2000 {
		var q Question
		f.Fill(&q)
		data, err := EncodeQuestion(&q)
		if err != nil {
			continue // a time encoding/json refuses too
		}
		if bytes.Contains(data, []byte(`\ufffd`)) {
			continue // mended text does not read back as given, as before
		}
		var back Question
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("question %d: %v\n%s", i, err, data)
		}
		again, err := EncodeQuestion(&back)
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("question %d does not read back as itself:\nfirst: %s\nagain: %s (%v)", i, data, again, err)
		}
	}
}

// FuzzJSONString checks the string encoder against encoding/json on any
// text, valid UTF-8 or not.
func FuzzJSONString(f *testing.F) {
	for _, s := range testutil.Awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		var text bytes.Buffer
		enc := json.NewEncoder(&text)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want = bytes.TrimSuffix(text.Bytes(), []byte("\n"))
		if got := AppendText([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("AppendText(%q) = %s, an encoder without HTML escaping writes %s", s, got, want)
		}
	})
}

// appended returns what an Append function appended to prefix, checking
// that it kept prefix and, when it failed, appended nothing (then nil).
func appended(t *testing.T, what string, prefix, got []byte, err error) []byte {
	t.Helper()
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("%s lost what it appended to: %s", what, got)
	}
	got = got[len(prefix):]
	if err == nil {
		return got
	}
	if len(got) > 0 {
		t.Fatalf("%s failed (%v) and still appended %s", what, err, got)
	}
	return nil
}

// TestCopiesJSONMatchesEncodingJSON checks that AppendCopies appends
// byte for byte what json.Marshal writes, over lists of copies filled at
// random, nil and empty ones among them.
func TestCopiesJSONMatchesEncodingJSON(t *testing.T) {
	f := testutil.NewFiller(7, 8)
	prefix := []byte(`{"x":`)
	for i := range 20000 {
		var cs []Copy
		f.Fill(&cs)
		got, gotErr := AppendCopies(slices.Clip(prefix), cs)
		want, wantErr := json.Marshal(cs)
		got = appended(t, fmt.Sprintf("copies %d: AppendCopies", i), prefix, got, gotErr)
		sameJSON(t, fmt.Sprintf("copies %d", i), cs, got, gotErr, want, wantErr)
	}
}

// TestAppendResultIsMarshalJSON checks that AppendResult appends what
// MarshalJSON returns, the values encoding/json refuses included.
func TestAppendResultIsMarshalJSON(t *testing.T) {
	f := testutil.NewFiller(9, 10)
	prefix := []byte(`[1,`)
	for i := range 5000 {
		var r Result
		f.Fill(&r)
		got, gotErr := AppendResult(prefix, &r)
		want, wantErr := r.MarshalJSON()
		got = appended(t, fmt.Sprintf("result %d: AppendResult", i), prefix, got, gotErr)
		sameJSON(t, fmt.Sprintf("result %d", i), r, got, gotErr, want, wantErr)
	}
}

// benchQuestion is an answered four-option question as the default route
// stores it.
func benchQuestion() Question {
	at := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	by := &Responder{Channel: "cli", User: "u1", Name: "u1"}
	return Question{
		ID: "k7m2qx", Agent: "agent-17", SessionID: "sess-7f3a", ToolCallID: "call_01HZX",
		Prompts: []Prompt{{Question: "Which database should the service use?", Header: "Database", Options: []Option{
			{Label: "Postgres", Description: "relational, needs a server"}, {Label: "SQLite", Description: "embedded, one file"},
			{Label: "MySQL", Description: "relational, needs a server"}, {Label: "Redis", Description: "in memory, persistence optional"}}}},
		Route: "default", Targets: []Target{{Channel: "web"}, {Channel: "cli"}}, Timeout: 30 * time.Minute,
		Fingerprint: "3f9a1c0d2b7e4a55", Status: StatusAnswered,
		Answers:    map[string]Answer{"Which database should the service use?": {Selected: []string{"SQLite"}, AnsweredBy: by}},
		AnsweredBy: by, CreatedAt: at, ExpiresAt: at.Add(30 * time.Minute), ResolvedAt: at.Add(42 * time.Second),
	}
}

// BenchmarkQuestionJSON is a store's encoding of a question: "hand" is
// EncodeQuestion, "reflect" is json.Marshal.
func BenchmarkQuestionJSON(b *testing.B) {
	q := benchQuestion()
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := EncodeQuestion(&q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(&q); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkResultJSON is the same for the result the API writes.
func BenchmarkResultJSON(b *testing.B) {
	type plain Result
	q := benchQuestion()
	r := q.Result()
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := r.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(plain(r)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestFingerprintBytes checks that the fingerprint written by hand digests
// the bytes encoding/json writes, over requests filled at random: every
// stored question's fingerprint depends on them, and a re-ask after an
// upgrade must still match it.
func TestFingerprintBytes(t *testing.T) {
	f := testutil.NewFiller(15, 16)
	fast := 0
	for i := range 20000 {
		var r AskRequest
		f.Fill(&r)
		var prompts []Prompt
		f.Fill(&prompts)
		if r.Policy != nil || len(r.Reminders) > 0 {
			continue
		}
		fast++
		got, want := appendFingerprint(nil, &r, prompts), fingerprintJSON(&r, prompts)
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d: fingerprint bytes differ\n got: %s\nwant: %s", i, got, want)
		}
	}
	if fast < 2000 {
		t.Fatalf("only %d requests took the hand-written path", fast)
	}
}

// BenchmarkFingerprint is the fingerprint of a four-option ask with a
// timeout, through encoding/json and as Fingerprint writes it.
func BenchmarkFingerprint(b *testing.B) {
	q := benchQuestion()
	timeout := Duration(30 * time.Minute)
	r := &AskRequest{SessionID: "s", ToolCallID: "c", Timeout: &timeout}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = fingerprintJSON(r, q.Prompts)
		}
	})
	b.Run("by-hand", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = Fingerprint(r, q.Prompts)
		}
	})
}
