package config

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/broker"
)

// Decode reads data, the file named file, into v (a pointer to a struct)
// strictly: an unknown key is an error, and every problem of the file is
// reported at once, each with its line, its key's path and what would
// work, in an *Error.
func Decode(file string, data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return &Error{File: file, Problems: explainYAML(data, err, reflect.TypeOf(v))}
	}
	return nil
}

// Duration reads "30m" style durations from YAML.
type Duration time.Duration

// UnmarshalYAML parses a duration as broker.ParseDuration reads it
// ("30m", "2h", "7d").
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := broker.ParseDuration(n.Value)
	if err != nil {
		return ValueError(n, err)
	}
	*d = Duration(v)
	return nil
}
