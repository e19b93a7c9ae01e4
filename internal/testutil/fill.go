package testutil

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"
)

// Awkward are strings that exercise every escaping rule of encoding/json.
var Awkward = []string{
	"", "plain", "Which database should the service use?",
	`<script>alert("x")</script> & more`, `quote " and back\slash`,
	"\x00\x01\x07\x1f\x7f", "\b\f\n\r\t", "line\u2028para\u2029end",
	"é 漢字 🙂", "\xff\xfe bad", "cut \xc3", "\xed\xa0\x80 surrogate", "\uFFFD given",
	"ends in \\", "\u00e9\u0301", "`", "\x1b[31m",
}

// Filler fills values with random contents: every field of every struct,
// nested ones too, each slice, map and pointer either nil, empty or
// holding values, strings from Awkward, times JSON can and cannot carry.
// A test that writes filled values as JSON and reads them back sees a
// field that does not survive the round trip as a difference.
type Filler struct {
	rng *rand.Rand
	// Strings, when set, are the strings filled in instead of Awkward.
	Strings []string
}

// NewFiller returns a Filler seeded with seed1 and seed2, so that a test
// fills the same values each run.
func NewFiller(seed1, seed2 uint64) Filler { return Filler{rng: rand.New(rand.NewPCG(seed1, seed2))} }

// Fill fills what ptr points to.
func (f Filler) Fill(ptr any) { f.fill(reflect.ValueOf(ptr).Elem(), 0) }

var timeType = reflect.TypeFor[time.Time]()

func (f Filler) fill(v reflect.Value, depth int) {
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(f.time()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		from := Awkward
		if f.Strings != nil {
			from = f.Strings
		}
		s := from[f.rng.IntN(len(from))]
		if f.rng.IntN(4) == 0 {
			s += from[f.rng.IntN(len(from))]
		}
		v.SetString(s)
	case reflect.Float64:
		switch f.rng.IntN(4) {
		case 0:
			v.SetFloat(0)
		case 1:
			v.SetFloat(f.rng.Float64())
		case 2:
			v.SetFloat(float64(f.rng.IntN(2000) - 1000))
		default:
			v.SetFloat((f.rng.Float64() - 0.5) * 1e300)
		}
	case reflect.Bool:
		v.SetBool(f.rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		switch f.rng.IntN(3) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(int64(f.rng.IntN(1000)) - 500)
		default:
			v.SetInt(f.rng.Int64() - f.rng.Int64())
		}
	case reflect.Pointer:
		if depth > 4 || f.rng.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch n := f.rng.IntN(5); {
		case depth > 4 || n == 0:
			v.Set(reflect.Zero(v.Type()))
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range n - 1 {
				f.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch n := f.rng.IntN(5); {
		case depth > 4 || n == 0:
			v.Set(reflect.Zero(v.Type()))
		case n == 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range n - 1 {
				k := reflect.New(v.Type().Key()).Elem()
				f.fill(k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				f.fill(e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		// A struct is left zero now and then, for the omitzero fields.
		if depth > 0 && f.rng.IntN(4) == 0 {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	default:
		panic(fmt.Sprintf("filler: no rule for %s", v.Type()))
	}
}

func (f Filler) time() time.Time {
	switch f.rng.IntN(8) {
	case 0:
		return time.Time{}
	case 1:
		return time.Now() // with a monotonic reading
	case 2:
		return time.Date(2026, 12, 2, 7, 8, 9, 123456789, time.FixedZone("IST", 5*3600+30*60))
	case 3:
		return time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
	case 4:
		return time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	case 5:
		return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // refused by encoding/json
	case 6:
		return time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("odd", -(3*3600+30))) // offset with seconds: refused
	default:
		return time.UnixMilli(f.rng.Int64N(4e12)).UTC()
	}
}
