// Package clientcmd holds the client commands of bridge: ask, answer,
// decline, snooze, wait, list, cancel, audit, events and rules. Each talks to the bridge at
// $ASKBRIDGE_SERVER through the SDK (package client), prints JSON or a
// table for a person, and exits with the code of the question's state
// (internal/cmdline). Commands returns them for the command tree that
// cmd/bridge builds.
package clientcmd

import "github.com/spf13/cobra"

// Commands returns the client commands, in the order help lists them.
func Commands() []*cobra.Command {
	return []*cobra.Command{
		newAskCmd(),
		newAnswerCmd(),
		newDeclineCmd(),
		newSnoozeCmd(),
		newWaitCmd(),
		newListCmd(),
		newCancelCmd(),
		newAuditCmd(),
		newEventsCmd(),
		newRulesCmd(),
	}
}
