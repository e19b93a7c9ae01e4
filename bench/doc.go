// Package bench measures askbridge end to end and at scale, and checks its
// promises under faults. It is the library behind the askbench command
// (bench/cmd/askbench):
//
//   - Load runs N concurrent agents against one or two `bridge serve`
//     processes (started by the tool on free loopback ports, or given as
//     URLs). Each agent asks a 4-option question, blocking or in pending
//     mode; a simulated responder answers it after a think time through
//     the real command path (POST /v1/commands on the text channel, which
//     goes through the broker's one parser). It reports cycles per second,
//     latencies, Redis commands per cycle (from INFO commandstats deltas),
//     the bridge's CPU and RSS (from /proc), and the store-only bound: the
//     same store operations driven in-process through the store
//     (QuestionStore: its questions and messages roles).
//   - Soak runs the same agents at a fixed rate (LoadConfig.Rate) for
//     minutes, reads the bridges and redis-server from /proc at the end of
//     each window, and compares the last window with the first one after
//     the warm-up on cycles per second, bridge CPU per cycle and bridge
//     RSS (soak.go).
//   - The scale runs measure Redis memory per pending question, bridge
//     memory per blocked waiter, and the sweeper's rate when many questions
//     time out in the same second.
//   - The fault runs kill and restart parts of the system under load, cut
//     or slow the fake platforms, hang up clients mid-post and flood a
//     rate-limited chat, and check that every question was resolved
//     exactly once and every platform copy posted once and edited. The
//     platforms' flood control is played by a front before each fake
//     (ratefront.go) that answers 429 the platform's way and records every
//     call it let through.
//
// Every loop is bounded in count and in time, and all traffic stays on
// 127.0.0.1. Heavy runs are commands of the tool, never part of go test.
package bench
