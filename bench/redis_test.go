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

func TestInfoField(t *testing.T) {
	v, ok := infoField("# Memory\r\nused_memory:1024\r\nused_memory_human:1.00K\r\n", "used_memory")
	if !ok || v != "1024" {
		t.Errorf("infoField = %q, %v; want 1024", v, ok)
	}
	if _, ok := infoField("used_memory_rss:5\r\n", "used_memory"); ok {
		t.Error("infoField matched a longer key")
	}
}
