// Package telegram is the askbridge channel for Telegram bots, built on
// go-telegram-bot-api/v5.
//
// Outbound, Post renders a question as one message in HTML parse mode
// (everything an agent wrote is escaped) with an inline keyboard: one
// button per option whose callback data is exactly the broker's command
// ("/answer k7m2qx 2"), "Other…", "📝 Note…", "Skip", "Not ready" and
// "Decline". Multi-select prompts get toggle buttons that carry the
// broker's "/toggle k7m2qx 2" (the selection is kept in the store, and the
// broker redraws every copy of the question in every chat with it), and a
// Done button that carries the command for the current selection. A note (typed after "Note…", or after "Other…" with
// options ticked) is held in memory (memory.go) and sent with the option
// or Done button tapped next, as broker.FormatOptionsOther; those buttons
// carry only where the note is ("a:<id>:<prompt>:<prompts>:<options>"),
// since callback data is limited to 64 bytes. Update edits the message as a dialog advances and,
// once the question is resolved, replaces it with the outcome and removes
// the keyboard. Remind replies to the question message.
//
// Inbound, every Telegram event becomes broker.Inbound text and goes
// through the broker, which parses, authorizes and records it: a button's
// callback data, a typed "/answer …" or "/decline …", a reply to the
// question message, a bare "2" in a private chat, and the free text typed
// after "Other…" (turned into "/answer <id> other <text>", or held as a
// note). The channel keeps no copy of a question: where a step of its
// interface needs one (the Other… reply box), it reads it through the
// broker with "/pending <id>". The channel
// shows the broker's Reply: as the callback toast for taps, as a reply
// message for typed text, and stays silent for chatter.
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
