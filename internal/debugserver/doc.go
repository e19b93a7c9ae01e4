// Package debugserver serves Go's runtime profiles (net/http/pprof) of a
// running bridge on a loopback address of its own, apart from the API, so
// that anyone on the machine can profile it:
//
//	bridge serve --debug-addr 127.0.0.1:6060
//	go tool pprof -seconds 30 http://127.0.0.1:6060/debug/pprof/profile
//
// It is opt-in and refuses any address that is not loopback: the profiles
// show what the process is doing (a CPU profile costs CPU while it runs)
// and the command line, and they have no authentication.
package debugserver
