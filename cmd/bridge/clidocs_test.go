package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md from the command tree")

// cliReferencePath is the command-line reference, generated from the
// command tree.
var cliReferencePath = filepath.Join("..", "..", "docs", "cli.md")

// writeCLIReference writes the markdown reference of every command:
// cobra's page per command, with the exit codes before "See also".
func writeCLIReference(root *cobra.Command) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# The bridge command line\n\n" +
		"<!-- Generated from the commands by `go test ./cmd/bridge -run TestCLIReference -update`; do not edit. -->\n\n" +
		"Every command prints its help with `-h` or `--help` (standard output, exit 0);\n" +
		"flags go before or after the arguments, and `--` ends them.\n\n")
	var walk func(cmd *cobra.Command) error
	walk = func(cmd *cobra.Command) error {
		cmd.DisableAutoGenTag = true
		var page bytes.Buffer
		link := func(name string) string {
			return "#" + strings.ReplaceAll(strings.TrimSuffix(name, ".md"), "_", "-")
		}
		if err := doc.GenMarkdownCustom(cmd, &page, link); err != nil {
			return err
		}
		codes := "### Exit codes\n\n```\n" + cmdline.ExitCodes(cmd) + "```\n\n"
		text := page.String()
		if i := strings.Index(text, "### SEE ALSO"); i >= 0 {
			text = text[:i] + codes + text[i:]
		} else {
			text += codes
		}
		b.WriteString(text)
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// docs/cli.md is what the command tree says; -update rewrites it.
func TestCLIReference(t *testing.T) {
	got, err := writeCLIReference(newRootCmd())
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *updateDocs {
		if err := os.WriteFile(cliReferencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cliReferencePath)
	if err != nil || !bytes.Equal(want, got) {
		t.Fatalf("docs/cli.md is stale: run go test ./cmd/bridge -run TestCLIReference -update%s", firstDiff(want, got))
	}
}

// firstDiff names the first line where two texts differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("\nline %d:\n  docs/cli.md: %q\n  commands:    %q", i+1, x, y)
		}
	}
	return ""
}
