// Package broker is the core of askbridge: the question model and its
// validation, the one command grammar every channel speaks, the lifecycle of
// a question from ask to resolution, and the contracts (Store, Channel) that
// storage and chat platforms implement.
//
// Data flows one way through it. An agent's Ask is validated, stored as
// pending with a deadline, and posted to every target of its route. Every
// person's action, whatever the platform, arrives as an Inbound carrying a
// plain text command ("/answer k7m2qx 2"); HandleInbound parses it with the
// one parser, checks that it came from a chat the question was posted to and
// from an allowed responder, and resolves the question with a compare-and-set
// in the Store. The winner's result is published on the store's resolution
// feed, which wakes waiters on every instance, and every posted copy of the
// question is updated to show the outcome. On the instance that resolved
// it, the waiters get the resolved question from the resolving call itself
// and the feed's wake for it is skipped, so that none reads it back.
//
// Platform calls go through the store's platform outbox: Create queues a
// post task per target that is not in-process, Resolve an edit task per
// posted copy, each in the same atomic step as the change. What carries
// the tasks out is not here but in the package broker/outbox, which
// imports the broker and which the broker never imports: the broker
// reaches it through the Deliverer interface (delivery.go) that the
// application wires with UseDeliverer (outbox.Attach does), asking it to
// attempt a question's tasks at once (DeliverNow) when the question was
// just asked or changed, and waiting for the first attempts up to the
// grace (Config.Grace). What the broker keeps is the vocabulary both
// sides and the channels share: the Target, the PlatformTask, and the
// failure classes. A failed call is classified in one place, Classify
// (failure.go), from how the channel wrapped its error (Permanent,
// RetryAfter); the task keeps the failure's class apart from its text,
// which is what people and agents see of it (Copies, failure_text.go);
// the channel's whole error goes to the log only. When the post to every
// target failed for good, UnsupportedIfNoTarget resolves the question.
// The copies at in-process targets (the web inbox, the text channel) are
// posted and edited here and now, without the outbox (inprocess.go).
//
// What a person sees of a question is one value built here, the Card
// (card.go): its prompts with their options, ticks and commands, its
// controls (Submit, Other or note, Skip, Not ready, Decline, Snooze) with
// their words and the exact command each sends, the chips of its state
// line, its reminder and its outcome. Each channel maps the card to its
// widgets in one pass and adds only markup; fitting a platform's limit is
// the card's too (Card.Shorten: the context goes first, then option
// descriptions, then questions). A button's data is a Step (step.go):
// the prompt's PromptRef (question id, 0-based prompt, prompt count),
// what the tap does and the options it carries, written by EncodeStep in
// at most 18 bytes and read back by DecodeStep on every platform;
// Step.Command gives the command the tap sends. Question.Given, NextOpen
// and Open say which prompt is answered and which is next, with -1 for
// "none left". Ticking a multi-select option is the command "/toggle
// k7m2qx.2 3" like any other action, and redraws every copy of the
// question.
//
// Every question has an audit trail (audit.go): its ask, the copies
// posted, the policies' votes, refusals, snoozes, escalations and notes,
// the answers to a dialog's prompts and the resolution. The entries of
// the steps every question takes are built here (audit_events.go) and
// appended by the store in the same atomic step as the change; each is
// sealed with the hash of the one before (SealAudit), so that VerifyAudit
// names an entry changed, removed or moved afterwards. The trail outlives
// its question.
//
// The Store contract is on one page, store.go: the roles each consumer
// names, every method with what it does, its errors and its atomicity
// (the records the methods carry are in store_types.go). Both stores pass
// its conformance suite, brokertest.TestStore.
//
// The broker knows no platform and no storage engine: it never imports a
// channel or a store implementation, and serves nothing; of net/http it
// uses only DetectContentType, for the type of a file a person sends.
package broker
