package bridgeconfig

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/internal/config"
)

// Flags are the flags of `bridge serve` and `bridge check-config`; they
// override the file.
type Flags struct {
	Config, Listen, DataDir, Store string
}

// AddFlags adds the flags that choose and override the config file.
func AddFlags(cmd *cobra.Command, f *Flags) {
	fs := cmd.Flags()
	fs.StringVar(&f.Config, "config", "", "configuration `FILE` (YAML; default $ASKBRIDGE_CONFIG; none: the embedded defaults)")
	fs.StringVar(&f.Listen, "listen", "", "`ADDR` to listen on (default "+DefaultListen+")")
	fs.StringVar(&f.DataDir, "data-dir", "", "data `DIR` (default $ASKBRIDGE_DATA_DIR, else $XDG_DATA_HOME/askbridge, else ~/.local/share/askbridge)")
	fs.StringVar(&f.Store, "store", "", "store `URL`: sqlite:///path/file.db or redis://host:port/db")
}

// FromFlags loads the file the flags (or $ASKBRIDGE_CONFIG) name, applies
// the flags and finishes the configuration. Problems come as one
// *config.Error: those found reading the file (each with its line) and
// those of the checks of every section, all in one run. The checks run
// on what could be read: a value the file got wrong is left at its
// default, and is told once, with its line.
func FromFlags(f Flags) (Config, error) {
	if f.Config == "" {
		f.Config = os.Getenv("ASKBRIDGE_CONFIG")
	}
	cfg, err := Load(f.Config)
	var read *config.Error
	if err != nil && !errors.As(err, &read) {
		return cfg, err
	}
	if f.Listen != "" {
		cfg.Listen = f.Listen
	}
	if f.DataDir != "" {
		cfg.DataDir = f.DataDir
	}
	if f.Store != "" {
		cfg.Store.URL = f.Store
	}
	var p config.Problems
	if read != nil {
		for _, e := range read.Problems {
			p.Add(e)
		}
	}
	if err := cfg.Finish(); err != nil {
		for _, e := range config.List(err) {
			p.Add(e)
		}
	}
	if len(p) > 0 {
		return cfg, &config.Error{File: f.Config, Problems: p}
	}
	return cfg, nil
}
