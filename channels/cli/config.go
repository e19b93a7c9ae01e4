package cli

// Config is the "cli" section of the bridge's configuration. The text
// channel is on unless disabled.
type Config struct {
	// Disabled turns the text channel off.
	Disabled bool `yaml:"disabled"`
}

// Validate checks c. The section has nothing that can be wrong yet; it is
// here so that every channel's configuration is checked the same way.
func (c Config) Validate() error { return nil }
