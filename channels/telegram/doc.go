// Package telegram is the askbridge channel for Telegram bots, built on
// go-telegram-bot-api/v5.
//
// Outbound, Post renders a question's broker.Card (broker.BuildCard, in
// the bridge's time zone) in one pass as one message in HTML parse mode
// (everything an agent wrote is escaped) with an inline keyboard: one
// button per option, and the card's controls with the card's words
// (Submit, "Other or note…", Skip, Not ready, Decline, Snooze). Every
// button's callback data is a broker.Step written by broker.EncodeStep
// (at most broker.MaxStepData bytes, within Telegram's 64), read back on
// a tap by broker.DecodeStep; the command a tap sends is the step's
// Command. Multi-select prompts get toggle buttons (the selection is kept
// in the store, and the broker redraws every copy of the question in
// every chat with it), and a Submit button for the current selection.
// "Other or note…" opens one reply box, as Slack's and Discord's one
// dialog does. On a prompt with options the reply is held in memory
// (notes.go, memory.go), since callback data holds 64 bytes, and the
// keyboard then offers each option (or Submit with the ticks) with it as
// the note, "Send as my answer" for the text alone (all StepWithNote),
// "📝 Change…" and "✖ Drop note". On a prompt without options
// ("Answer…") the reply is the answer. A text over Telegram's 4096
// characters is rendered once more from the card shortened by the excess
// (Card.Shorten). Buttons posted by the release before steps carry older
// data, still read (legacy.go). Update edits the message as a dialog
// advances and, once the question is resolved, replaces it with the
// card's outcome and removes the keyboard. Remind replies to the question
// message with the card's reminder.
//
// Inbound, every Telegram event becomes broker.Inbound text and goes
// through the broker, which parses, authorizes and records it: the
// command of a tapped button's step, a typed "/answer …" or "/decline …",
// a reply to the question message, a bare "2" in a private chat, and the
// text typed in the reply box (the step's command, "/answer <id> other
// <text>", or held until a tap sends it). The channel keeps no copy of a
// question: where a step of its interface needs one (the reply box), it
// reads it through the broker with "/pending <id>". The channel shows the
// broker's Reply: as the callback toast for taps, as a reply message for
// typed text, and stays silent for chatter.
//
// Updates arrive by long polling (Run, one poller per bot token, hence
// Singleton) or by webhook (Handler, which checks the secret token header
// in constant time). The outbox's calls (Post, Update, Remind) are made
// once: a 429 comes back as broker.RetryAfter with Telegram's retry_after,
// and the outbox sends again on a pacing slot after it. The calls made
// directly (answering a tap, a reply) wait a 429 out in place, with
// bounded retries. Chat-not-found and forbidden are classified as
// permanent, and the bot token never reaches logs or errors.
package telegram
