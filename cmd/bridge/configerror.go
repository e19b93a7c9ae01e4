package main

import (
	"fmt"
	"strings"
)

// ConfigError is every problem found in a configuration, one line each.
type ConfigError struct {
	// File is the configuration file ("" for the embedded defaults).
	File string
	// Problems are what is wrong, each naming its line or key.
	Problems []error
}

func (e *ConfigError) Error() string {
	where := "config"
	if e.File != "" {
		where += " " + e.File
	}
	if len(e.Problems) == 1 {
		return where + ": " + e.Problems[0].Error()
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + p.Error()
	}
	return fmt.Sprintf("%s: %d problems:\n%s", where, len(e.Problems), strings.Join(lines, "\n"))
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (e *ConfigError) Unwrap() []error { return e.Problems }
