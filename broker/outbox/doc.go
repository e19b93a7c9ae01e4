// Package outbox carries out the platform work of askbridge: the posts,
// edits and reminders that the broker queues in the store's platform
// outbox (broker.PlatformOutbox) in the same atomic step as the change
// that needs them. It is the broker's Deliverer: the application makes
// it with Attach right after broker.New, which hands it to the broker,
// and runs Run on every instance; claims are safe across instances.
//
// Data flows one way. The broker writes tasks (Store.Create queues a post
// per target that is not in-process, Resolve an edit per posted copy, a
// dialog's progress and an escalation theirs) and asks for them to be
// attempted at once (DeliverNow) when the question was just asked or
// changed; the loop (Run, outbox.go) claims what else falls due, sleeping
// until the store's next due task (due.go). An attempt (attempt.go) reads
// the question as it stands; a post whose earlier outcome is unknown
// looks first for the copy it may have made (find.go, broker.Finder);
// then it takes a pacing slot per chat and per bot (pacing.go, Pacing),
// makes one call of the channel (Post, Update or Remind) and records the
// outcome under its claim. A failed call is classified by broker.Classify:
// a permanent failure ends the task, a rate limit holds the chat's pacing
// on every instance until the platform's retry_after, a timeout or any
// other failure is retried with backoff (internal/backoff) until the
// task's deadline. When the post to every target of a question failed for
// good, the broker resolves it as unsupported (UnsupportedIfNoTarget).
//
// The outbox imports the broker (the model, the store roles, the Channel
// contract and the failure vocabulary) and the broker never imports it:
// the broker reaches it through the small broker.Deliverer interface.
// The copies at in-process targets (the web inbox, the text channel) are
// not the outbox's: the broker posts and edits them itself.
package outbox
