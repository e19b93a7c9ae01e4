// Command bridge runs the askbridge server and talks to it: serve, ask,
// answer, decline, wait, list, cancel, events, mcp, check-config,
// version, completion. The command tree is built in root.go; the
// commands live with what they do (app/clientcmd, app/hooks)
// and this package wires them and the server together.
//
// Exit codes of the client commands: 0 answered (or done), 3 declined,
// 4 timed out, 5 cancelled, 6 unsupported, 2 bad input, 1 other failure.
package main

import (
	"os"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// buildInfo is what `bridge version` reports.
type buildInfo struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Go       string `json:"go,omitempty"`
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: version}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				b.Revision = s.Value[:12]
			}
		}
		b.Go = info.GoVersion
	}
	return b
}

func versionString() string {
	b := readBuildInfo()
	v := b.Version
	if b.Revision != "" {
		v += " (" + b.Revision + ")"
	}
	if b.Go != "" {
		v += " " + b.Go
	}
	return v
}
