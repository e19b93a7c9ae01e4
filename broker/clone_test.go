package broker

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// fill sets every field reachable from v to a value that is not the zero
// value, so that a field added later is covered without editing the test.
func fill(v reflect.Value, seed *int) {
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *seed))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*seed))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*seed))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*seed) / 2)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), seed)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), seed)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, seed)
			fill(e, seed)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, *seed%60, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed)
			}
		}
	}
}

func fullQuestion() *Question {
	var q Question
	seed := 0
	fill(reflect.ValueOf(&q).Elem(), &seed)
	q.Status = StatusAnswered
	return &q
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Clone copies every field, and the copy shares nothing with the original:
// changing every field of the copy leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	q := fullQuestion()
	before := mustJSON(t, q)
	c := q.Clone()
	if !reflect.DeepEqual(c, q) {
		t.Fatalf("clone differs:\n got %s\nwant %s", mustJSON(t, c), before)
	}
	seed := 1000
	fill(reflect.ValueOf(c).Elem(), &seed)
	// fill replaces slices, maps and pointers; change the elements the
	// copy may share with the original too.
	mutateInPlace(reflect.ValueOf(q.Clone()).Elem())
	if after := mustJSON(t, q); after != before {
		t.Errorf("changing a clone changed the original:\nbefore %s\nafter  %s", before, after)
	}
}

// mutateInPlace changes every element reachable from v without replacing
// any slice, map or pointer, which is how a shared backing array shows.
func mutateInPlace(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 7)
	case reflect.Pointer:
		if !v.IsNil() {
			mutateInPlace(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutateInPlace(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			switch e.Kind() {
			case reflect.Slice, reflect.Pointer, reflect.Map:
				mutateInPlace(e) // shares the elements: change them there
			default:
				mutateInPlace(e)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Hour)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mutateInPlace(v.Field(i))
			}
		}
	}
}

// Clone keeps what the stores' JSON keeps: a nil slice stays nil and an
// empty one empty, and a nil question clones to nil.
func TestCloneEdges(t *testing.T) {
	var none *Question
	if none.Clone() != nil {
		t.Error("a nil question cloned to a question")
	}
	q := &Question{ID: "q1", Answers: map[string]Answer{"a": {Selected: []string{}}, "b": {}}}
	c := q.Clone()
	if c.Answers["a"].Selected == nil || c.Answers["b"].Selected != nil {
		t.Errorf("Selected: %#v and %#v, want an empty slice and nil", c.Answers["a"].Selected, c.Answers["b"].Selected)
	}
	if mustJSON(t, c) != mustJSON(t, q) {
		t.Errorf("clone encodes as %s, want %s", mustJSON(t, c), mustJSON(t, q))
	}
}

func BenchmarkClone(b *testing.B) {
	q := fullQuestion()
	b.ReportAllocs()
	for b.Loop() {
		_ = q.Clone()
	}
}

// MendedJSON tells json.Marshal's mended text (what is not UTF-8, written
// as \ufffd) from text it wrote as it was, U+FFFD itself included.
func TestMendedJSON(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{"plain ünïcode 🚀 <&>", false},
		{"a replacement character \ufffd typed as such", false},
		{"not UTF-8: \xff", true},
		{map[string]string{"key \xfe": "v"}, true},
		{`a typed \ufffd`, true}, // refused to be safe: a decode gives it back anyway
	} {
		data, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := MendedJSON(data); got != c.want {
			t.Errorf("MendedJSON(%s) = %v, want %v", data, got, c.want)
		}
	}
}
