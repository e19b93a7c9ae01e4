// Package slack is the Slack channel of askbridge, built on slack-go.
//
// Outbound, Post builds the question's broker.Card once (in the
// channel's time zone, naming the other channels the question went to)
// and maps it to Block Kit in one pass (render.go): a header chip, the
// question, the options with their descriptions, what the prompt takes,
// the context, and the card's state line, then one actions block per
// prompt with a button per option (the recommended one primary), or
// checkboxes and Submit for a multi-select prompt, the prompt's controls
// ("Other or note…", a modal with the options again and a text input,
// when free text is allowed; Skip), then Not ready, Decline and, where
// the route allows it, Snooze. The words of the question, its state and
// its controls come from the card; the channel adds mrkdwn, the
// recommended mark (broker.RecommendedSuffix), a prompt's place in a
// dialog ("Question 2 of 3") and the words of its own modal. Slack's 3,000 characters per text block are met
// by rendering once and, when a block is over, shortening the card once
// (broker.Card.Shorten: the context first, then option descriptions,
// then questions) and rendering again (fit.go). Agent text is escaped
// for mrkdwn (& < >), which makes mentions such as <!here> inert. Update
// replaces the copy with the card's outcome and drops the buttons;
// Remind replies in the message's thread with the card's reminder.
//
// Every button's value is the broker.Step it takes (broker.EncodeStep, at
// most broker.MaxStepData bytes: "1o:k7m2qx.1/1:2"); a tap is read back
// with broker.DecodeStep and sent as the step's command (Step.Command),
// so a tap and a typed command travel the same road. Buttons posted by
// the previous release still work for one release: those that carried
// their command decode as a Legacy step, and the JSON reference of the
// old Submit and "Other or note…" buttons and of the Other modal is read
// by legacy.go.
//
// Inbound, every interaction becomes a broker.Inbound and goes to the
// broker, which parses, authorizes and answers:
//
//   - a button tap: the command of its step;
//   - Submit under checkboxes: a broker.StepPick of the options ticked in
//     the payload's state, "/answer <id> 1,3";
//   - "Other or note…": nothing is sent; the modal opens, showing the
//     question and options read from the message the button is on, and
//     carrying the step and the conversation in its private_metadata;
//   - the Other modal's submission: a broker.StepPick of the options
//     picked in it, with the text: "/answer <id> other <text>", or
//     "/answer <id> 1,3 other <text>";
//   - the /answer, /decline, /discuss and /pending slash commands;
//   - a message: "answer …", "!answer …", or a bare "2" or label typed in
//     the question's thread (Inbound.ReplyTo is the thread's ts, which is the
//     question message's ts).
//
// A message that shares files (subtype file_share) carries them to the
// broker as attachments, downloaded from url_private_download with the bot
// token (files.go) once the broker has checked the person.
//
// The broker's Reply is shown to the person as an ephemeral message; chatter
// the broker ignores gets no answer.
//
// Two connection modes exist. Socket Mode (the default) dials out with an
// app-level token and needs no public URL; Run owns the connection. HTTP
// mode serves Handler, which reads at most 256 KiB of body within 10 s,
// verifies Slack's request signature (signing secret, five-minute window)
// before anything is processed and answers the Events API
// url_verification challenge. A signature stays valid for its window, so
// each signed request is taken once: the digest of a slash command's or
// an interaction's body, and an event's event_id, are remembered in the
// store's broker.ReplayGuard (channels.Options.Replay), shared by every
// instance, and a copy sent again (a replay, Slack's redelivery of an
// event) gets 200 and is dropped (replay.go). Over Socket Mode, event ids
// are remembered the same way. Forged requests are logged at most once a
// second, with their count.
//
// In both modes a delivery is acknowledged only once the broker has
// recorded its action, so that a crash in between cannot lose a tap
// Slack was told had arrived; when recording takes longer than 2 s
// (Slack waits 3) the delivery is acknowledged anyway and recording goes
// on, uncancelled. The person's ephemeral reply comes after the ack.
//
// Targets are Slack ids: a conversation (C…, G…) or a person (U…), whose
// questions go to their DM with the bot; address.go explains how DM copies
// are referenced.
//
// Failures that retrying cannot fix (channel_not_found, not_in_channel,
// invalid_auth, account_inactive, is_archived, …) are returned as
// broker.Permanent. A 429 on the outbox's calls (Post, Update, Remind) is
// returned as broker.RetryAfter with Slack's Retry-After, for the outbox
// to send again on a pacing slot after it; the calls made directly (a
// reply to a person, a modal) retry it in place after Retry-After.
package slack
