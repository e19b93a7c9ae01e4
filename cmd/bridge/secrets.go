package main

import (
	"errors"
	"fmt"
	"os"
)

// minSecretLen is the shortest key accepted on a bridge reachable beyond
// loopback: shorter keys can be guessed over the network.
const minSecretLen = 16

// exposed reports whether people and programs beyond this machine can
// reach the bridge: it listens beyond loopback, or a reverse proxy brings
// them in (server.public_url).
func (c *Config) exposed() bool {
	return !loopback(c.Listen) || c.Server.PublicURL != ""
}

// secretEntry is one configured key, named as the file writes it.
type secretEntry struct {
	field  string // "agents[0].key_env"
	env    string // the environment variable
	secret string
}

// checkSecrets checks the keys of agents and responders. Beyond loopback
// every key must have at least minSecretLen characters. Always, no two
// entries may hold the same key: the key is what tells the bridge who
// calls, so a shared key would let one agent act as another, or an agent
// answer its own questions as a responder. Errors name the entries and
// environment variables, never the secret.
func (c *Config) checkSecrets() error {
	var all []secretEntry
	for i, k := range c.Agents {
		all = append(all, secretEntry{fmt.Sprintf("agents[%d].key_env", i), k.KeyEnv, os.Getenv(k.KeyEnv)})
	}
	for i, p := range c.People {
		all = append(all, secretEntry{fmt.Sprintf("responders[%d].key_env", i), p.KeyEnv, os.Getenv(p.KeyEnv)})
	}
	seen := map[string]secretEntry{}
	var errs []error
	for _, e := range all {
		if e.secret == "" {
			continue // unset: checkKeys says so
		}
		if c.exposed() && len(e.secret) < minSecretLen {
			errs = append(errs, fmt.Errorf("%s: the key in %s has %d characters; a bridge reachable beyond loopback needs keys of at least %d (e.g. openssl rand -hex 24)", e.field, e.env, len(e.secret), minSecretLen))
		}
		if first, dup := seen[e.secret]; dup {
			errs = append(errs, fmt.Errorf("%s: the key in %s is the same as the key of %s (%s); give every agent and responder a key of its own", e.field, e.env, first.field, first.env))
		}
		seen[e.secret] = e
	}
	return errors.Join(errs...)
}
