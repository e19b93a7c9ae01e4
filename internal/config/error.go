package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Error is every problem found in a configuration, one line each.
type Error struct {
	// File is the configuration file ("" for the embedded defaults).
	File string
	// Problems are what is wrong, each naming its line or key.
	Problems []error
}

// Error says where and lists the problems, one a line.
func (e *Error) Error() string {
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
func (e *Error) Unwrap() []error { return e.Problems }

// UnsetEnvError is a setting that names an environment variable which is
// not set: a secret the configuration needs but the environment lacks.
// check-config tells these apart from mistakes in the file.
type UnsetEnvError struct {
	// Field is the setting, e.g. agents[0].key_env.
	Field string
	// Var is the environment variable it names.
	Var string
}

// Error names the setting and the variable.
func (e *UnsetEnvError) Error() string {
	return fmt.Sprintf("%s: environment variable %s is not set", e.Field, e.Var)
}

// Problems collects what is wrong with a configuration, so that one run
// reports all of it: each check adds its error (nil is nothing), a joined
// error adds each of its lines, and a message already added is not
// repeated.
type Problems []error

func (p *Problems) Add(err error) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok && strings.Contains(err.Error(), "\n") {
		for _, e := range j.Unwrap() {
			p.Add(e)
		}
		return
	}
	for _, e := range *p {
		if e.Error() == err.Error() {
			return
		}
	}
	*p = append(*p, err)
}

// List returns the problems in err: each of a joined error, or err.
func List(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// UnsetSecrets splits problems into unset environment variables (their
// names, in order) and the rest.
func UnsetSecrets(all []error) (vars []string, rest []error) {
	for _, e := range all {
		var u *UnsetEnvError
		if errors.As(e, &u) {
			if !slices.Contains(vars, u.Var) {
				vars = append(vars, u.Var)
			}
			continue
		}
		rest = append(rest, e)
	}
	return vars, rest
}

// At names the setting key in err ("routes.ops.timeout: …"); nil stays
// nil, so that a check's result can be added as it is.
func At(key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", key, err)
}
