package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/internal/logbuf"
)

// TestLogLines: the log section's level drops the lines below it, the
// text format writes slog's key=value lines (quoted where a value holds a
// space), json writes one object a line, and a logger made with With
// keeps its fields. bridge serve batches the lines, and a warning is
// written at once, with the lines held before it.
func TestLogLines(t *testing.T) {
	tests := []struct {
		name string
		cfg  bridgeconfig.Log
		want []string // the lines, with the time removed
	}{
		{"text at info", bridgeconfig.Log{Level: "info"}, []string{
			`level=INFO msg="question asked" question_id=k7m2qx prompts=1`,
			`level=WARN msg="platform outbox: permanent failure" channel=telegram question_id=k7m2qx err="chat not found"`,
		}},
		{"text at warn", bridgeconfig.Log{Level: "warn"}, []string{
			`level=WARN msg="platform outbox: permanent failure" channel=telegram question_id=k7m2qx err="chat not found"`,
		}},
		{"json at info", bridgeconfig.Log{Level: "info", Format: "json"}, []string{
			`{"level":"INFO","msg":"question asked","question_id":"k7m2qx","prompts":1}`,
			`{"level":"WARN","msg":"platform outbox: permanent failure","channel":"telegram","question_id":"k7m2qx","err":"chat not found"}`,
		}},
	}
	textTime := regexp.MustCompile(`^time=\S+ `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := logbuf.New(&out)
			log := newServeLogger(tt.cfg, w)
			log.Debug("not written", "question_id", "k7m2qx")
			log.Info("question asked", "question_id", "k7m2qx", "prompts", 1)
			log.With("channel", "telegram").Warn("platform outbox: permanent failure", "question_id", "k7m2qx", "err", "chat not found")
			// The warning wrote what was held: nothing is flushed here.
			var got []string
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if tt.cfg.Format == "json" {
					var m map[string]any
					if err := json.Unmarshal([]byte(line), &m); err != nil {
						t.Fatalf("not a JSON line: %q: %v", line, err)
					}
					if _, ok := m["time"]; !ok {
						t.Fatalf("no time in %q", line)
					}
					line = strings.Replace(line, `"time":`+mustJSON(t, m["time"])+`,`, "", 1)
				} else {
					if !textTime.MatchString(line) {
						t.Fatalf("no time at the start of %q", line)
					}
					line = textTime.ReplaceAllString(line, "")
				}
				got = append(got, line)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
