// Package cmdline holds what every command of bridge shares: the exit codes
// and how an error becomes one (Exit, UsageErr, Report), the checks of
// positional arguments, the exit-code section of help, the client of
// $ASKBRIDGE_SERVER with its connect timeout and the errors a person
// reads, whether an output is a person's terminal and how wide
// (TerminalOf; colours only there and without NO_COLOR), and the
// escaping of text that is printed into a terminal
// (Printable, JSONTerminal): questions and answers are written by agents
// and people, and nothing in them reaches a terminal raw.
package cmdline
