// Package timeouts ends questions that nobody answers, and nudges people
// before that happens.
//
// The policy itself lives with the question: the broker gives every
// question a deadline when it is asked (30 minutes by default, a route's
// timeout, or the question's own, always within 10 s–7 days), stores it
// as ExpiresAt, and turns reminder points (fractions of the time to the
// deadline, 0.5 and 0.9 by default) into absolute reminder times. An
// optional lease says how long the asking agent may stay silent.
//
// This package acts on those times. A Sweeper is a plain function of the
// clock: Sweep(ctx, now) reads the store's three indexes of work that is
// due at now, and for each entry
//
//   - resolves a question past its deadline as timed_out through
//     broker.Expire: the answers people gave to a dialog stay, each
//     unanswered prompt takes its default (marked "defaulted") when it has
//     one, and the fallback says which ("default", "partial" or "none");
//   - sends at most one reminder per question and reminder point, claimed
//     in the store first, so a restart or a second sweeper never repeats
//     one; after downtime only the latest overdue reminder is sent;
//   - cancels a question whose asking agent stopped renewing its lease.
//
// Every resolution goes through broker.Resolve, the same compare-and-set
// that records a person's answer, so an answer racing the sweeper yields
// exactly one outcome, and the broker edits every posted copy to say
// what happened. Because Sweep only reads the indexes, its cost grows with
// the number of questions that are due, not with the number pending.
//
// Purge(ctx, now), the same kind of function, removes questions resolved
// longer ago than the retention (a week by default), with their events
// and finished deliveries.
//
// Run sweeps when something falls due and purges every hour (from a
// robfig/cron scheduler) until its context ends. Between sweeps it sleeps
// until the earliest entry of the store's schedule (NextScheduled),
// woken earlier when this instance asks a question with an earlier one,
// and never longer than broker.MaxIdle, which bounds how late it sees work
// written by another instance. cmd/bridge runs it on the elected leader
// only, although two sweepers on one store would still never resolve a
// question twice.
package timeouts
