package redis

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestShardOfIsCRC32: a question's shard is the CRC-32 (IEEE) of its id
// modulo 16, as every version computed it; a store written earlier keeps
// its questions where they are.
func TestShardOfIsCRC32(t *testing.T) {
	in := []string{"", "a", "k7m2qx", "8c1c792ea2536068c41d9c92b136635f", "ünïcode\x00id"}
	for range 2000 {
		in = append(in, broker.NewID())
		b := make([]byte, rand.IntN(40))
		for i := range b {
			b[i] = byte(rand.IntN(256))
		}
		in = append(in, string(b))
	}
	for _, s := range in {
		if got, want := shardOf(s), int(crc32.ChecksumIEEE([]byte(s))%shards); got != want {
			t.Fatalf("shardOf(%q) = %d, want %d", s, got, want)
		}
	}
	// Known values, fixed by stored data.
	for s, want := range map[string]int{"gkuhkg": 12, "xz4tsp": 2} {
		if got := shardOf(s); got != want {
			t.Fatalf("shardOf(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestKeyNames: the names built once at start are the layout's names.
func TestKeyNames(t *testing.T) {
	k := newKeys("p:")
	for _, c := range []struct{ got, want string }{
		{k.rec("gkuhkg"), "p:{s12}:q:gkuhkg"}, {k.body("gkuhkg"), "p:{s12}:j:gkuhkg"},
		{k.recPrefix(3), "p:{s3}:q:"}, {k.due(3), "p:{s3}:due"}, {k.rem(3), "p:{s3}:rem"},
		{k.timers(3), "p:{s3}:tm"}, {k.lease(3), "p:{s3}:lease"}, {k.all(15), "p:{s15}:all"},
		{k.done(0), "p:{s0}:done"}, {k.outbox(0), "p:{s0}:ob"}, {k.unlogged(0), "p:{s0}:unl"},
		{k.agent(1, "a"), "p:{s1}:ag:a"}, {k.session(1, "a", "s"), "p:{s1}:as:a\x00s"}, {k.oldSess(1, "s"), "p:{s1}:ss:s"}, {k.chat(1, "tg", "-1"), "p:{s1}:ch:tg\x00-1"},
		{k.evSeq(), "p:{ev}:seq"}, {k.evLog(), "p:{ev}:log"}, {k.evIDs(), "p:{ev}:ids"},
		{k.evAgent("a"), "p:{ev}:a:a"}, {k.evPending("a"), "p:{ev}:p:a"}, {k.feed(), "p:resolved"},
	} {
		if c.got != c.want {
			t.Errorf("key %q, want %q", c.got, c.want)
		}
	}
}
