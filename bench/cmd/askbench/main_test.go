package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunRefusesBadCommandLines(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "usage: askbench"},
		{"unknown command", []string{"stress"}, 2, `unknown command "stress"`},
		{"help", []string{"help"}, 0, ""},
		{"three instances", []string{"load", "--instances", "3"}, 2, "--instances 3: use 1 or 2"},
		{"unknown store", []string{"load", "--store", "mysql"}, 2, `--store "mysql"`},
		{"remote redis", []string{"load", "--store", "redis://10.1.1.1:6379/0"}, 2, "only a Redis on 127.0.0.1"},
		{"remote server", []string{"load", "--server", "http://192.0.2.1:8377"}, 2, "only http://127.0.0.1:PORT"},
		{"two sqlite instances", []string{"load", "--instances", "2"}, 2, "only with Redis"},
		{"unknown config", []string{"load", "--config", "heavy"}, 2, `--config "heavy": use default`},
		{"unknown flag", []string{"load", "--agentz", "5"}, 2, "agentz"},
		{"stray argument", []string{"load", "now"}, 2, "unexpected arguments"},
		{"scale without run", []string{"scale"}, 2, "pending, waiters, sweep or inbox"},
		{"unknown scale run", []string{"scale", "disk"}, 2, `unknown run "disk"`},
		{"inbox with more open than stored", []string{"scale", "inbox", "--stored", "10", "--open", "20"}, 2, "--open from 0 to --stored"},
		{"inbox unknown store", []string{"scale", "inbox", "--store", "mysql"}, 2, `--store "mysql": use sqlite or redis`},
		{"unknown fault", []string{"fault", "flood"}, 2, `unknown run "flood"`},
		{"soak bad duration", []string{"soak", "--duration", "ten"}, 2, `invalid value "ten" for flag -duration`},
		{"soak one window", []string{"soak", "--duration", "1m"}, 2, "--duration 1m0s: must cover the warm-up of 2m0s and at least two windows"},
		{"soak negative warm-up", []string{"soak", "--warmup", "-1m"}, 2, "--warmup -1m0s: must not be negative"},
		{"soak zero rate", []string{"soak", "--rate", "0"}, 2, "--rate 0: must be a positive number"},
		{"soak negative rate", []string{"soak", "--rate", "-3"}, 2, "--rate -3"},
		{"soak unknown store", []string{"soak", "--store", "mysql"}, 2, `--store "mysql"`},
		{"soak unknown mode", []string{"soak", "--mode", "eager"}, 2, `--mode "eager"`},
		{"soak stray argument", []string{"soak", "now"}, 2, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tt.args, &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.want) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.want)
			}
		})
	}
}
