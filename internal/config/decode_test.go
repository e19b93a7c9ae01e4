package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/config"
)

type testFile struct {
	Name    string          `yaml:"name"`
	Timeout config.Duration `yaml:"timeout"`
	Section struct {
		Retries int      `yaml:"retries"`
		Tags    []string `yaml:"tags"`
	} `yaml:"section"`
}

// A file is read strictly, and every problem is told at once, for the
// person who wrote it: its line, its key's path, the nearest known key
// and what the value must be.
func TestDecode(t *testing.T) {
	var ok testFile
	if err := config.Decode("a.yaml", []byte("name: x\ntimeout: 7d\nsection:\n  retries: 3\n"), &ok); err != nil {
		t.Fatal(err)
	}
	if time.Duration(ok.Timeout) != 7*24*time.Hour || ok.Section.Retries != 3 {
		t.Fatalf("decoded %+v", ok)
	}

	var bad testFile
	err := config.Decode("a.yaml", []byte("nmae: x\ntimeout: soon\nsection:\n  retries: lots\n  tags: x\n"), &bad)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.File != "a.yaml" {
		t.Fatalf("error %v, want a *config.Error for a.yaml", err)
	}
	want := []string{
		`line 1: unknown key "nmae" (did you mean "name"?)`,
		`line 2: `,
		`line 4: section.retries must be a number, got "lots"`,
		`line 5: section.tags must be a list`,
	}
	if len(ce.Problems) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(ce.Problems), len(want), err)
	}
	for i, w := range want {
		if !strings.Contains(ce.Problems[i].Error(), w) {
			t.Errorf("problem %d is %q, want it to hold %q", i, ce.Problems[i], w)
		}
	}
	if !strings.HasPrefix(err.Error(), "config a.yaml: 4 problems:\n") {
		t.Errorf("message %q", err)
	}
}

// Problems keeps each message once and opens joined errors.
func TestProblems(t *testing.T) {
	var p config.Problems
	p.Add(nil)
	p.Add(errors.New("a"))
	p.Add(errors.Join(errors.New("a"), errors.New("b")))
	p.Add(&config.UnsetEnvError{Field: "agents[0].key_env", Var: "KEY"})
	if len(p) != 3 {
		t.Fatalf("problems %v, want a, b and the unset variable", p)
	}
	vars, rest := config.UnsetSecrets(p)
	if len(vars) != 1 || vars[0] != "KEY" || len(rest) != 2 {
		t.Fatalf("unset %v, rest %v", vars, rest)
	}
}
