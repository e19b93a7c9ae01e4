package mcp

// serverInstructions tell the client what the server is for.
const serverInstructions = `askbridge carries questions to the people you work for, in the chat apps they use (Slack, Discord, Telegram, a web inbox), and returns their answers. Use ask_user when you need a decision or information only a person can give, and cannot reasonably proceed without it.`

const askDescription = `Ask the user (the people you work for) one or more questions and wait for their answers. The questions reach them in their chat app with buttons; the answer comes back as this tool's result.

When to ask: only for a decision or information you cannot find out yourself and that changes what you do next (a choice between approaches, an unclear requirement, permission for something risky or irreversible). Do not ask to confirm what you were already told, and do not ask for things you can look up.

How to ask:
- Make ONE call with every question you need answered now (1 to 4), rather than several calls one after another.
- Each question is complete on its own, ends with a question mark, and gives the context needed to answer it.
- header: a chip of at most 16 characters, such as "Database".
- options: 2 to 4 choices with labels of 1 to 5 words, and a description that says what each choice means. Leave options out for a free-text question.
- Put the option you recommend first and end its label with " (Recommended)".
- Do not add an "Other" option: the user can always answer in their own words unless you set other to false.
- multi_select: true when several options may be chosen.
- default: the answer to use if nobody answers before the timeout (30 minutes unless you set timeout).

The result says what happened: the answers keyed by question text (selected labels, custom_text when the user typed their own answer or added a note to the selected labels, skipped), or that the user declined, wants to discuss first, did not answer in time, or cannot be reached. Respect a decline. With wait set to false the call returns a question id at once; collect the answer with get_answer.`

const getDescription = `Get the answer to a question asked with ask_user (wait: false, or a call that was interrupted). Waits up to wait_seconds (at most 60) for an answer, then returns it, or says the question is still pending; call again later in that case.`

const cancelDescription = `Withdraw a question asked with ask_user that is no longer needed (you found the answer yourself, or the plan changed). The people it was asked see that it was withdrawn, with the reason.`
