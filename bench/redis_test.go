package bench

import "testing"

func TestSumCalls(t *testing.T) {
	info := "# Commandstats\r\n" +
		"cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_info:calls=99,usec=1,usec_per_call=0.01,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_hget:calls=5,usec=5,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r\n"
	if got := sumCalls(info); got != 15 {
		t.Errorf("sumCalls = %d, want 15 (INFO itself left out)", got)
	}
	if got := sumCalls(""); got != 0 {
		t.Errorf("sumCalls of nothing = %d", got)
	}
}

func TestPerCycleAndTopCalls(t *testing.T) {
	before := map[string]int64{"hget": 10, "zadd": 4, "get": 7}
	after := map[string]int64{"hget": 30, "zadd": 24, "get": 7, "evalsha": 50}
	by := perCycle(before, after, 10)
	if len(by) != 3 || by["hget"] != 2 || by["evalsha"] != 5 {
		t.Fatalf("perCycle = %v, want evalsha 5, hget 2, zadd 2 and no get", by)
	}
	if got, want := topCalls(by, 2), "evalsha 5.0, hget 2.0"; got != want {
		t.Errorf("topCalls = %q, want %q (most first, ties by name)", got, want)
	}
	if got := topCalls(nil, 8); got != "" {
		t.Errorf("topCalls of nothing = %q", got)
	}
}

func TestInfoField(t *testing.T) {
	v, ok := infoField("# Memory\r\nused_memory:1024\r\nused_memory_human:1.00K\r\n", "used_memory")
	if !ok || v != "1024" {
		t.Errorf("infoField = %q, %v; want 1024", v, ok)
	}
	if _, ok := infoField("used_memory_rss:5\r\n", "used_memory"); ok {
		t.Error("infoField matched a longer key")
	}
}
