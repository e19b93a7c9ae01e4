package i18n

// en is the source catalog: every message id, in English. The words a
// person types (command words, "yes", "no", option numbers) are not here:
// they stay English in every language (docs/languages.md).
var en = Catalog{
	// The card's head.
	"card.title":    P(1, "%d question, answered one after the other", "%d questions, answered one after the other"),
	"card.progress": S("%d of %d answered"),

	// Controls.
	"control.submit":    S("Submit"),
	"control.other":     S("Other or note…"),
	"control.answer":    S("Answer…"),
	"control.skip":      S("Skip"),
	"control.not_ready": S("Not ready"),
	"control.decline":   S("Decline"),
	"control.snooze":    S("Snooze"),

	// A prompt's hints.
	"hint.recommended":    S("Recommended = the agent's suggestion; nothing is chosen until you answer."),
	"expect.choose_note":  S("Choose one or more; you can add a note"),
	"expect.choose":       S("Choose one or more"),
	"expect.own_words":    S("Answer in your own words"),
	"example.your_answer": S("<your answer>"),

	// A typed field's rule.
	"field.choose":         S("Choose %s"),
	"field.reply":          S("Reply with %s"),
	"field.number":         S("a number%s"),
	"field.integer":        S("a whole number%s"),
	"field.boolean":        S("yes or no"),
	"field.one_of":         S("one of %s"),
	"field.or":             S("%s or %s"),
	"field.email":          S("an email address such as ana@example.com"),
	"field.uri":            S("a URI such as https://example.com/page"),
	"field.date":           S("a date such as 2026-12-03"),
	"field.datetime":       S("a date and time such as 2026-12-03T14:30:00Z"),
	"field.text":           S("text%s"),
	"field.with_length":    S("%s,%s"),
	"field.range":          S(" from %s to %s"),
	"field.at_least":       S(" of at least %s"),
	"field.at_most":        S(" of at most %s"),
	"field.chars":          P(1, "%d character", "%d characters"),
	"field.length_exactly": S(" of exactly %s"),
	"field.length_range":   S(" of %d to %s"),
	"field.items_exactly":  S("exactly %d of the choices"),
	"field.items_range":    S("%d to %d of the choices"),
	"field.items_at_least": S("at least %d of the choices"),
	"field.items_at_most":  S("at most %d of the choices"),
	"field.items_one_more": S("one or more of the choices"),

	// The state line.
	"chip.expires":    S("Expires %s"),
	"chip.default":    S("default: %s"),
	"chip.snoozed":    S("snoozed by %s"),
	"chip.escalated":  S("escalated to %s"),
	"chip.asked_by":   S("asked by %s"),
	"chip.elsewhere":  S("also in %s"),
	"votes.none":      P(2, "%d of %d vote", "%d of %d votes"),
	"votes.tally":     S("%d of %d: %s"),
	"votes.choice_by": S("%s by %s"),

	// Times: weekday, day, month, time of day; day, month, year, time.
	"when.this_year":  S("%[1]s %[2]s %[3]s %[4]s"),
	"when.other_year": S("%[1]s %[2]s %[3]s %[4]s"),
	"weekday.0":       S("Sun"),
	"weekday.1":       S("Mon"),
	"weekday.2":       S("Tue"),
	"weekday.3":       S("Wed"),
	"weekday.4":       S("Thu"),
	"weekday.5":       S("Fri"),
	"weekday.6":       S("Sat"),
	"month.1":         S("Jan"),
	"month.2":         S("Feb"),
	"month.3":         S("Mar"),
	"month.4":         S("Apr"),
	"month.5":         S("May"),
	"month.6":         S("Jun"),
	"month.7":         S("Jul"),
	"month.8":         S("Aug"),
	"month.9":         S("Sep"),
	"month.10":        S("Oct"),
	"month.11":        S("Nov"),
	"month.12":        S("Dec"),
	"duration.s":      P(1, "%d s", "%d s"),
	"duration.min":    P(1, "%d min", "%d min"),
	"duration.h":      P(1, "%d h", "%d h"),
	"duration.h_min":  S("%d h %d min"),
	"duration.days":   P(1, "%d day", "%d days"),

	// Answers and who gave them.
	"answer.skipped":   S("skipped"),
	"answer.with_note": S("%s (note: “%s”)"),
	"answer.quoted":    S("“%s”"),
	"answer.nothing":   S("nothing"),
	"answer.none":      S("no answer"),
	"answer.default":   S("%s (default)"),
	"answer.by":        S("%s (by %s)"),
	"who.someone":      S("someone"),
	"who.someone_on":   S("someone on %s"),

	// Outcomes.
	"outcome.skipped":          S("Skipped by %s at %s"),
	"outcome.answered_at":      S("Answered at %s: %s"),
	"outcome.answered":         S("Answered by %s at %s: %s"),
	"outcome.declined":         S("Declined by %s at %s"),
	"outcome.not_ready":        S("Not ready to answer; wants to discuss by %s at %s"),
	"outcome.reason":           S("%s: %s"),
	"outcome.expired_none":     S("Expired at %s with no answer"),
	"outcome.default_used":     S("No answer in %s: used the default, %s"),
	"outcome.expired_outcomes": S("Expired at %s with no answer: %s"),
	"outcome.expired_some":     S("Expired at %s with %d of %d answered: %s"),
	"outcome.cancelled":        S("Cancelled at %s"),
	"outcome.undelivered":      S("Could not be delivered: %s"),

	// Reminders.
	"reminder.open":         S("Reminder: this question is still open and expires in %s (at %s)"),
	"reminder.then_default": S("%s; then the default applies: %s"),
}

// The words of the channels' own gestures, around the card.
var enChannels = Catalog{
	"telegram.dropped":           S("Some buttons could not be shown; type instead:"),
	"telegram.how_free":          S("Reply to this message with your answer, or type"),
	"telegram.how_multi":         S("Tap the options you want, then %s; or reply with their numbers, or type"),
	"telegram.how_options":       S("Tap a button, reply to this message with a number, or type"),
	"telegram.how_options_other": S("Tap a button, reply to this message with a number or your own answer, or type"),
	"telegram.now_question":      S("Now question %d of %d. %s"),

	"slack.answered":    S("Answered: %s"),
	"slack.state_id":    S("%s  ·  question %s"),
	"slack.question_id": S("Question %s"),
	"slack.question_n":  S("Question %d of %d"),
	"slack.reply":       S("Reply: %s"),
	"slack.reply_other": S("%s  or  %s  or, with a note,  %s"),
	"slack.text":        S("<text>"),
	"slack.note":        S("<note>"),
	"slack.reason":      S("[reason]"),
	"slack.message":     S("[message]"),

	"discord.type_instead":  S("Type instead: %s"),
	"discord.how":           S("Tap a button, reply to this message with a number or your own words, or type %s"),
	"discord.choose":        S("Choose one or more"),
	"discord.whole_context": P(2, "📎 The whole context of question %s (%d character)", "📎 The whole context of question %s (%d characters)"),
}

// The broker's replies to what a person did.
var enReplies = Catalog{
	"reply.recorded":            S("Recorded: %s"),
	"reply.recorded_next":       S("Recorded: %s (%d of %d); next: %s"),
	"reply.discuss":             S("Recorded: you want to discuss before answering; the agent has been told."),
	"reply.declined":            S("Recorded: declined."),
	"reply.vote":                S("Recorded your vote: %s (%s)."),
	"reply.vote_changed":        S("Changed your vote to: %s (%s)."),
	"reply.vote_quorum":         S("Recorded your vote: %s. The quorum is reached: %s."),
	"reply.vote_changed_q":      S("Changed your vote to: %s. The quorum is reached: %s."),
	"reply.vote_closed":         S("Recorded your vote: %s. The question is %s."),
	"reply.vote_changed_closed": S("Changed your vote to: %s. The question is %s."),
	"status.pending":            S("pending"),
	"status.answered":           S("answered"),
	"status.declined":           S("declined"),
	"status.cancelled":          S("cancelled"),
	"status.timed_out":          S("timed out"),
	"status.unsupported":        S("undeliverable"),
	"reply.snoozed":             P(4, "Snoozed: %s now expires at %s (%d of %d snooze).", "Snoozed: %s now expires at %s (%d of %d snoozes)."),
	"reply.snooze_limit":        P(3, "%s was already snoozed %d of %d times; it still expires at %s. Nothing changed.", "%s was already snoozed %d of %d times; it still expires at %s. Nothing changed."),
	"reply.snooze_latest":       S("%s already has its latest deadline allowed (%s). Nothing changed."),
	"reply.snooze_none":         S("%s cannot be snoozed: its route allows no snooze. Nothing changed."),
}
