// Package config reads the bridge's configuration file for a person: a
// strict decode (an unknown key is an error), every problem of the file at
// once, each with its line and key path, the nearest known key for a typo,
// and what a value must be in words (explain.go). A section type checks
// its values as the file is read (ValueError) or in its Validate; the
// problems of all sections are collected in Problems and returned as one
// *Error. Settings that name an environment variable which is not set are
// *UnsetEnvError, so that check-config can tell a missing secret from a
// mistake in the file.
package config
