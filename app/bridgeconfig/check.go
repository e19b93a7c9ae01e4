package bridgeconfig

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/spf13/cobra"
)

// NewCheckCmd is `bridge check-config`: load and check the
// configuration as serve would, without starting, and report every
// problem in one run.
func NewCheckCmd() *cobra.Command {
	var (
		f            Flags
		jsonOut      bool
		allowMissing bool
	)
	cmd := &cobra.Command{
		Use:   "check-config [flags] [FILE]",
		Short: "Check the configuration without starting",
		Long: `Load the configuration as serve would (the file, then the flags) and check
it without starting anything. Every problem is listed in one run, one line
each, naming its line or key. Settings that name an environment variable
which is not set (the secrets: keys, tokens) are told apart: when they are
the only problems, it says "OK apart from N unset secrets", and
--allow-missing-env accepts them, to check a file on a machine that does
not hold its secrets. serve refuses to start on any problem. The file is named by FILE, --config
or $ASKBRIDGE_CONFIG.`,
		Example: `  bridge check-config askbridge.yaml
  bridge check-config --config config.example.yaml --allow-missing-env`,
		Args: cmdline.Args(0, 1, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if f.Config != "" && f.Config != args[0] {
					return cmdline.UsageErr("give the file as FILE or with --config, not both (%s, %s)", args[0], f.Config)
				}
				f.Config = args[0]
			}
			cfg, err := FromFlags(f)
			var ce *config.Error
			if err != nil && !errors.As(err, &ce) {
				return cmdline.Exit(cmdline.ExitBadInput, err)
			}
			r := checkReport{File: f.Config, OK: true, Problems: []string{}, UnsetEnv: []string{}}
			if ce != nil {
				r.File = ce.File
				vars, rest := config.UnsetSecrets(ce.Problems)
				r.UnsetEnv = append(r.UnsetEnv, vars...)
				list := ce.Problems
				if allowMissing {
					list = rest
				}
				for _, p := range list {
					r.Problems = append(r.Problems, p.Error())
				}
				r.OK = len(r.Problems) == 0
				r.onlySecrets, r.allowed = len(rest) == 0, allowMissing
			}
			if r.OK {
				channels := slices.Sorted(maps.Keys(cfg.Channels.Enabled()))
				r.Listen, r.Store, r.Routes, r.Channels = cfg.Listen, cfg.Store.Name(), len(cfg.Routes), channels
			}
			if jsonOut {
				cmdline.PrintJSON(cmd.OutOrStdout(), r)
			} else {
				r.print(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.CommandPath())
			}
			if !r.OK {
				return cmdline.Exit(cmdline.ExitBadInput, nil)
			}
			return nil
		},
	}
	AddFlags(cmd, &f)
	cmd.Flags().BoolVar(&allowMissing, "allow-missing-env", false, "accept settings whose environment variable is not set (and name them)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"ok","file","problems","unset_env","listen","store","routes","channels"} as JSON`)
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "the configuration is valid (apart from unset secrets, with --allow-missing-env)", cmdline.ExitBadInput, "it has problems (each is listed), or a flag is wrong")
	return cmd
}

// checkReport is what check-config found.
type checkReport struct {
	OK       bool     `json:"ok"`
	File     string   `json:"file,omitempty"`
	Problems []string `json:"problems"`
	UnsetEnv []string `json:"unset_env"`
	Listen   string   `json:"listen,omitempty"`
	Store    string   `json:"store,omitempty"`
	Routes   int      `json:"routes,omitempty"`
	Channels []string `json:"channels,omitempty"`

	onlySecrets bool // every problem is an unset secret
	allowed     bool // --allow-missing-env: unset secrets are not listed
}

// print writes the report for a person: the summary on stdout when the
// configuration is OK, the config.Problems on stderr when not.
func (r checkReport) print(stdout, stderr io.Writer, name string) {
	secrets := fmt.Sprintf("%d unset secret%s: %s", len(r.UnsetEnv), plural(len(r.UnsetEnv)), strings.Join(r.UnsetEnv, ", "))
	if r.OK {
		ok := "config OK"
		if len(r.UnsetEnv) > 0 {
			ok += " apart from " + secrets + ";"
		} else {
			ok += ":"
		}
		fmt.Fprintf(stdout, "%s listen %s, store %s, %d route(s), channels: %s\n", ok, r.Listen, r.Store, r.Routes, strings.Join(r.Channels, ", "))
		return
	}
	where := "config"
	if r.File != "" {
		where += " " + r.File
	}
	if len(r.Problems) == 1 {
		fmt.Fprintf(stderr, "%s: %s: %s\n", name, where, r.Problems[0])
	} else {
		fmt.Fprintf(stderr, "%s: %s: %d problems:\n", name, where, len(r.Problems))
		for _, p := range r.Problems {
			fmt.Fprintf(stderr, "  %s\n", p)
		}
	}
	switch {
	case len(r.UnsetEnv) == 0:
	case r.onlySecrets:
		fmt.Fprintf(stderr, "The configuration is OK apart from %s. Set them, or pass --allow-missing-env to accept them.\n", secrets)
	case r.allowed:
		fmt.Fprintf(stderr, "Besides, %s (accepted with --allow-missing-env).\n", secrets)
	default:
		fmt.Fprintf(stderr, "Of these, %s.\n", secrets)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
