package redis

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// packedEcho returns the record at KEYS[1] as whole() does.
var packedEcho = newScript(prelude + `return whole(KEYS[1])`)

// TestPackedRecordReadsBack checks, against a real Redis, that a record
// the scripts pack reads back as HGETALL gives it: names and values with
// punctuation, digits, bytes that are not UTF-8, empty strings and a long
// value; one that holds NUL bytes too, which goes back as an array; and
// that a missing record reads as an empty one.
func TestPackedRecordReadsBack(t *testing.T) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379", MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	key := "askbridge-test:packed:" + newBodyVersion() + ":q:k7m2qx"
	jkey := strings.TrimSuffix(key, "q:k7m2qx") + "j:k7m2qx"
	defer c.Del(ctx, key, jkey)

	v, err := packedEcho.Run(ctx, c, []string{key}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := fromWhole(v); err != nil || len(rec) != 1 || rec["j"] != "" {
		t.Fatalf("a missing record reads as %v, %v; want only an empty body", rec, err)
	}

	plain := map[string]string{
		"st": "pending", "": "empty name", "empty": "", ":": ";", "3:abc": "1;2:",
		"12": "34", "m1": "web\tchat: x\t" + "k7m2qx\t1700000000000", "bin": "\xff\xfe;:\x01",
		"é": "漢字 🙂", "long": strings.Repeat("0123456789:;", 5000),
	}
	withNUL := maps.Clone(plain)
	withNUL["se"] = "a\x00b"
	withNUL["\x00"] = "\x00\x00"
	for _, tc := range []struct {
		name   string
		fields map[string]string
		packed bool
	}{{"plain", plain, true}, {"with NUL bytes", withNUL, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c.Del(ctx, key)
			if err := c.HSet(ctx, key, tc.fields).Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.Set(ctx, jkey, `{"id":"k7m2qx"}`, 0).Err(); err != nil {
				t.Fatal(err)
			}
			v, err := packedEcho.Run(ctx, c, []string{key}).Result()
			if err != nil {
				t.Fatal(err)
			}
			if _, isString := v.([]any)[0].(string); isString != tc.packed {
				t.Fatalf("the record went back as a string: %v, want %v", isString, tc.packed)
			}
			rec, err := fromWhole(v)
			if err != nil {
				t.Fatal(err)
			}
			if rec["j"] != `{"id":"k7m2qx"}` {
				t.Fatalf("body = %q", rec["j"])
			}
			delete(rec, "j")
			if !maps.Equal(map[string]string(rec), tc.fields) {
				t.Fatalf("the record reads back as\n%q\nwant\n%q", rec, tc.fields)
			}
		})
	}
}

// TestUnpackRecordRefusesDamage checks that a packed record whose names
// and values do not pair, or that names a field twice, is an error that
// says so, not a record.
func TestUnpackRecordRefusesDamage(t *testing.T) {
	if r, err := unpackRecord("st\x00pending\x00a\x00\x00\x00x"); err != nil || len(r) != 3 || r["st"] != "pending" || r["a"] != "" || r[""] != "x" {
		t.Fatalf("a good record reads as %q, %v", r, err)
	}
	for _, bad := range []string{"st", "st\x00pending\x00a", "\x00\x00", "a\x001\x00a\x002"} {
		if r, err := unpackRecord(bad); err == nil || !strings.Contains(err.Error(), "packed record") {
			t.Errorf("unpackRecord(%q) = %v, %v; want an error about the packed record", bad, r, err)
		}
	}
}

// arrayEcho returns the record at KEYS[1] as the scripts did before they
// packed it: {HGETALL, body}.
var arrayEcho = newScript(prelude + `return {redis.call('HGETALL', KEYS[1]), redis.call('GET', jkey(KEYS[1])) or ''}`)

// BenchmarkRecordReply reads a pending question's record of 28 fields
// back from a script, as an array of strings and packed, to the record
// Resolve assembles the question from.
func BenchmarkRecordReply(b *testing.B) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379", MaxRetries: -1})
	defer c.Close()
	ctx := context.Background()
	key := "askbridge-test:packed:" + newBodyVersion() + ":q:k7m2qx"
	defer c.Del(ctx, key)
	fields := map[string]string{"st": "answered", "r": `{"answers":{"Which database should the service use?":{"selected":["SQLite"],"custom_text":"","skipped":false}},"resolved_at":"2026-03-02T14:00:42Z"}`}
	for _, f := range []string{"a", "se", "cr", "np", "rt", "rs", "lu", "k", "mn", "m1", "m2", "ra", "bv", "lv", "dl", "bx", "ex", "es", "hf", "ha", "pv", "cb", "ds", "da", "dn", "dc"} {
		fields[f] = "1764684042123456"
	}
	if err := c.HSet(ctx, key, fields).Err(); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sc   *script
		read func(v any) (record, error)
	}{
		{"array", arrayEcho, func(v any) (record, error) {
			arr := v.([]any)
			return toRecord(arr[0])
		}},
		{"packed", packedEcho, fromWhole},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				v, err := tc.sc.Run(ctx, c, []string{key}).Result()
				if err != nil {
					b.Fatal(err)
				}
				if r, err := tc.read(v); err != nil || len(r) < len(fields) {
					b.Fatal(r, err)
				}
			}
		})
	}
}
