package api

import "testing"

// limits.mcp_sessions_per_agent: unset leaves the MCP server's default;
// a value written out must be 1–10000, zero included.
func TestLimitsMCPSessionsValidate(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tt := range []struct {
		name string
		v    *int
		want string
	}{
		{"unset", nil, ""},
		{"one", n(1), ""},
		{"largest", n(10_000), ""},
		{"zero", n(0), "limits.mcp_sessions_per_agent: must be a whole number from 1 to 10000, got 0"},
		{"negative", n(-1), "limits.mcp_sessions_per_agent: must be a whole number from 1 to 10000, got -1"},
		{"too large", n(10_001), "limits.mcp_sessions_per_agent: must be a whole number from 1 to 10000, got 10001"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := Limits{MCPSessionsPerAgent: tt.v}
			err := l.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
				t.Fatalf("Validate: %v, want %q", err, tt.want)
			}
			if l.MCPSessionsPerAgent != tt.v {
				t.Fatalf("Validate changed the setting to %v", l.MCPSessionsPerAgent)
			}
		})
	}
}
