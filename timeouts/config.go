package timeouts

import (
	"cmp"
	"fmt"
	"log/slog"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// Config is the timeouts section of the configuration file: the default
// deadline, the reminder points and the least time between two sweeps.
type Config struct {
	// Default is the deadline of questions whose route and request set
	// none (30m when unset; 10s–7d).
	Default config.Duration `yaml:"default"`
	// Reminders are fractions of the time to the deadline at which people
	// are nudged (0.5 and 0.9 when unset; [] for none).
	Reminders []float64 `yaml:"reminders"`
	// SweepEvery is the least time between two sweeps (1s when unset; at
	// least 1s); the sweeper sleeps until something falls due.
	SweepEvery SweepInterval `yaml:"sweep_every"`
	// Batch is how many due questions one store query returns (500 when
	// unset; 1–100000). A sweep keeps querying until all due are done.
	Batch SweepBatch `yaml:"batch"`
}

// SweepInterval is timeouts.sweep_every: a duration of at least a second,
// checked as the file is read so a mistake names its line.
type SweepInterval time.Duration

// UnmarshalYAML parses a Go duration of at least one second.
func (d *SweepInterval) UnmarshalYAML(n *yaml.Node) error {
	v, err := broker.ParseDuration(n.Value)
	if err != nil {
		return config.ValueError(n, fmt.Errorf("timeouts.sweep_every: %q is not a duration (use e.g. 1s, 5s)", n.Value))
	}
	if err := checkSweepEvery(v); err != nil {
		return config.ValueError(n, err)
	}
	*d = SweepInterval(v)
	return nil
}

// SweepBatch is timeouts.batch, checked as the file is read.
type SweepBatch int

// UnmarshalYAML parses a whole number within 1–100000.
func (b *SweepBatch) UnmarshalYAML(n *yaml.Node) error {
	var v int
	if err := n.Decode(&v); err != nil {
		return config.ValueError(n, fmt.Errorf("timeouts.batch: %q is not a whole number", n.Value))
	}
	if err := checkBatch(v); err != nil {
		return config.ValueError(n, err)
	}
	*b = SweepBatch(v)
	return nil
}

func checkSweepEvery(d time.Duration) error {
	if d < MinEvery {
		return fmt.Errorf("timeouts.sweep_every: %s is below the minimum of %s", d, MinEvery)
	}
	if d > time.Hour {
		return fmt.Errorf("timeouts.sweep_every: %s is above the maximum of 1h (deadlines would fire that late)", d)
	}
	return nil
}

func checkBatch(n int) error {
	if n < 1 || n > MaxBatch {
		return fmt.Errorf("timeouts.batch: %d is outside 1–%d", n, MaxBatch)
	}
	return nil
}

// Validate checks every timeouts key and names the first bad one. Zero
// values mean "the default".
func (t Config) Validate() error {
	if d := time.Duration(t.Default); d != 0 {
		if err := broker.CheckTimeout(d); err != nil {
			return config.At("timeouts.default", err)
		}
	}
	if err := broker.ValidateReminders("timeouts.reminders", t.Reminders, t.Deadline()); err != nil {
		return err
	}
	if t.SweepEvery != 0 {
		if err := checkSweepEvery(time.Duration(t.SweepEvery)); err != nil {
			return err
		}
	}
	if t.Batch != 0 {
		return checkBatch(int(t.Batch))
	}
	return nil
}

// Deadline is the default deadline in effect: Default, or 30m when unset.
func (t Config) Deadline() time.Duration {
	return cmp.Or(time.Duration(t.Default), broker.DefaultTimeout)
}

// Options turns the section into the sweeper's options, with the
// store's retention for the purge.
func (t Config) Options(retention time.Duration, log *slog.Logger) Options {
	return Options{Every: time.Duration(t.SweepEvery), Batch: int(t.Batch), Retention: retention, Logger: log}
}
