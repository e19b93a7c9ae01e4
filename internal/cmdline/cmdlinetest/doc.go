// Package cmdlinetest gives the tests of the command line a real
// terminal: a pseudo-terminal whose far end a test reads, so that what a
// command shows a person (and only to a person) can be checked.
package cmdlinetest
