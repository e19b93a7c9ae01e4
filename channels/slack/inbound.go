package slack

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// The slash commands the app registers (deploy/slack-manifest.yaml).
var slashCommands = map[string]bool{
	"/answer": true, "/decline": true, "/discuss": true, "/pending": true,
}

// interaction records a block_actions or view_submission payload with the
// broker and returns what to do once the delivery is acknowledged.
func (c *Channel) interaction(ctx context.Context, cb slackapi.InteractionCallback) followUp {
	switch cb.Type {
	case slackapi.InteractionTypeBlockActions:
		var then []followUp
		for _, a := range cb.ActionCallback.BlockActions {
			then = append(then, c.blockAction(ctx, cb, a))
		}
		return all(then)
	case slackapi.InteractionTypeViewSubmission:
		if cb.View.CallbackID == otherCallbackID {
			return c.otherSubmitted(ctx, cb)
		}
	}
	return nil
}

func userName(u slackapi.User) string {
	if u.Username != "" {
		return u.Username
	}
	return u.Name
}

// blockAction records one tapped button of a question message: the
// broker.Step its value carries, sent as the step's command. Submit sends
// the options ticked in the checkboxes beside it; "Other or note…" opens
// the Other modal once the tap is acknowledged.
func (c *Channel) blockAction(ctx context.Context, cb slackapi.InteractionCallback, a *slackapi.BlockAction) followUp {
	chat := cb.Channel.ID
	if chat == "" {
		chat = cb.Container.ChannelID
	}
	in := broker.Inbound{Channel: Name, Chat: chatOf(chat, cb.User.ID), User: cb.User.ID, Name: userName(cb.User), Private: isDM(chat)}
	where := replyTo{chat: chat, user: in.User, threadTS: cb.Container.ThreadTs, responseURL: cb.ResponseURL}
	step, ok := c.buttonStep(chat, a)
	if !ok {
		return nil // a checkbox tick: its state arrives with Submit
	}
	if step.Legacy == "" {
		switch step.Kind {
		case broker.StepOther:
			shown := promptShown(cb.Message, step.Ref)
			var ticked []int
			if shown.multi {
				ticked = tickedOptions(cb.BlockActionState, a.BlockID)
			}
			meta := modalMeta{step: step, chat: chat}
			// Nothing to record: the modal opens once the tap is acknowledged.
			return func(ctx context.Context) {
				c.openOther(ctx, c.dialogWords(ctx, in, step.Ref.ID), cb.TriggerID, meta, shown, ticked)
			}
		case broker.StepSubmit:
			// The ticks are the checkboxes' state as the person left it,
			// not those the button was drawn with.
			step = broker.Step{Kind: broker.StepPick, Ref: step.Ref, Options: tickedOptions(cb.BlockActionState, a.BlockID)}
		}
	}
	cmd, ok := step.Command("")
	if !ok {
		if step.Kind == broker.StepPick {
			// Submit pressed with no checkbox ticked.
			w := c.words(in.User)
			return c.telling(where, w.T("dialog.slack.none_ticked", w.T("control.submit")))
		}
		c.log.Debug("a button step that sends nothing", "chat", chat, "value", a.Value)
		return nil
	}
	in.Text = cmd
	return c.dispatch(ctx, in, where)
}

// buttonStep reads the step a tapped button carries: a broker.Step, a
// command (a button posted before steps), or an old JSON reference
// (legacy.go). A checkbox tick, which carries none, reports false.
func (c *Channel) buttonStep(chat string, a *slackapi.BlockAction) (broker.Step, bool) {
	if a.ActionID == actionPick || a.Value == "" {
		return broker.Step{}, false
	}
	step, err := broker.DecodeStep(a.Value)
	if err == nil {
		return step, true
	}
	if errors.Is(err, broker.ErrNotStep) {
		if old, ok := legacyButton(a.ActionID, a.Value); ok {
			return old, true
		}
	}
	c.log.Warn("button with bad data", "chat", chat, "action_id", a.ActionID, "err", err)
	return broker.Step{}, false
}

// tickedOptions reads the 0-based indexes of the ticked checkboxes of an
// actions block from a block_actions payload's state.values.
func tickedOptions(state *slackapi.BlockActionStates, blockID string) []int {
	if state == nil {
		return nil
	}
	var out []int
	for _, o := range state.Values[blockID][actionPick].SelectedOptions {
		if k, ok := optionIndex(o.Value); ok {
			out = append(out, k)
		}
	}
	return out
}

// optionIndex reads a 0-based option index written by render.go.
func optionIndex(s string) (int, bool) {
	k, err := strconv.Atoi(s)
	return k, err == nil && k >= 0 && k < broker.MaxOptions
}

// shownPrompt is a prompt as the message a button is on shows it, which
// the Other modal shows again: the question (escaped), the option labels
// in order, and whether several may be picked.
type shownPrompt struct {
	question string
	labels   []string
	multi    bool
}

// promptShown reads prompt ref from the question message m, as Slack
// sends it with a tap: the question's section, and the option buttons
// or checkboxes of the prompt's actions block. The blocks are the ones
// render.go wrote (before this release too), found by their block ids.
func promptShown(m slackapi.Message, ref broker.PromptRef) shownPrompt {
	var p shownPrompt
	questionID, actionsID := blockID(ref.ID, ref.Index, "question"), blockID(ref.ID, ref.Index, "actions")
	label := func(k int, text *slackapi.TextBlockObject) {
		for len(p.labels) <= k {
			p.labels = append(p.labels, strconv.Itoa(len(p.labels)+1))
		}
		if text != nil {
			p.labels[k] = text.Text
		}
	}
	for _, b := range m.Blocks.BlockSet {
		switch b := b.(type) {
		case *slackapi.SectionBlock:
			if b.BlockID == questionID && b.Text != nil {
				p.question = escapeMrkdwn(unescapeMessage(b.Text.Text))
			}
		case *slackapi.ActionBlock:
			if b.BlockID != actionsID || b.Elements == nil {
				continue
			}
			for _, el := range b.Elements.ElementSet {
				switch el := el.(type) {
				case *slackapi.ButtonBlockElement:
					if k, ok := optionIndex(strings.TrimPrefix(el.ActionID, actionOptionPrefix)); ok && strings.HasPrefix(el.ActionID, actionOptionPrefix) {
						label(k, el.Text)
					}
				case *slackapi.CheckboxGroupsBlockElement:
					p.multi = true
					for _, o := range el.Options {
						if k, ok := optionIndex(o.Value); ok {
							label(k, o.Text)
						}
					}
				}
			}
		}
	}
	return p
}

// openOther opens the modal in which a person types an Other answer or,
// when the prompt has options, picks some and adds the text as a note.
// ticked are the options ticked in the message, ticked again here. The
// modal's own words are printed by w.
func (c *Channel) openOther(ctx context.Context, w *i18n.Printer, triggerID string, meta modalMeta, p shownPrompt, ticked []int) {
	var blocks []slackapi.Block
	if p.question != "" {
		blocks = append(blocks, slackapi.NewSectionBlock(mrkdwn(cutEscaped(p.question, maxSectionText)), nil, nil, slackapi.SectionBlockOptionBlockID("question")))
	}
	textLabel := w.T("dialog.slack.label_answer")
	if len(p.labels) > 0 {
		blocks = append(blocks, choiceInput(w, p, ticked))
		textLabel = w.T("dialog.slack.label_note")
	}
	input := slackapi.NewPlainTextInputBlockElement(plain(w.T("dialog.slack.placeholder"), maxPlaceholder), otherActionID)
	input.Multiline = true
	input.MaxLength = 2000
	text := slackapi.NewInputBlock(otherBlockID, plain(textLabel, maxModalLabel), nil, input)
	text.Optional = len(p.labels) > 0
	blocks = append(blocks, text)
	title := w.T("dialog.slack.title_answer")
	if len(p.labels) > 0 {
		title = w.T("dialog.slack.title_note")
	}
	view := slackapi.ModalViewRequest{
		Type:            slackapi.VTModal,
		Title:           plain(title, maxModalTitle),
		Submit:          plain(w.T("dialog.slack.submit"), maxModalTitle),
		Close:           plain(w.T("dialog.slack.close"), maxModalTitle),
		CallbackID:      otherCallbackID,
		PrivateMetadata: meta.encode(),
		Blocks:          slackapi.Blocks{BlockSet: blocks},
	}
	if _, err := c.api.OpenViewContext(ctx, triggerID, view); err != nil {
		c.log.Warn("views.open failed", "question_id", meta.step.Ref.ID, "chat", meta.chat, "err", err)
	}
}

// choiceInput is the modal's optional radio buttons (one answer) or
// checkboxes (several), with the options ticked in the message ticked.
func choiceInput(w *i18n.Printer, p shownPrompt, ticked []int) *slackapi.InputBlock {
	opts := make([]*slackapi.OptionBlockObject, len(p.labels))
	for k, label := range p.labels {
		opts[k] = slackapi.NewOptionBlockObject(strconv.Itoa(k), plain(label, maxOptionText), nil)
	}
	var el slackapi.BlockElement
	label := w.T("dialog.slack.choice")
	if p.multi {
		boxes := slackapi.NewCheckboxGroupsBlockElement(choiceActionID, opts...)
		for _, k := range ticked {
			if k < len(opts) {
				boxes.InitialOptions = append(boxes.InitialOptions, opts[k])
			}
		}
		el, label = boxes, w.T("dialog.slack.choices")
	} else {
		el = slackapi.NewRadioButtonsBlockElement(choiceActionID, opts...)
	}
	b := slackapi.NewInputBlock(choiceBlockID, plain(label, maxModalLabel), nil, el)
	b.Optional = true
	return b
}

// otherSubmitted records what the modal was sent with: the options picked
// and the text as a note, or the text alone as the Other answer.
func (c *Channel) otherSubmitted(ctx context.Context, cb slackapi.InteractionCallback) followUp {
	meta, err := decodeModalMeta(cb.View.PrivateMetadata)
	if err != nil {
		old, oldErr := legacyModalMeta(cb.View.PrivateMetadata)
		if oldErr != nil {
			c.log.Warn("other answer with bad metadata", "err", err)
			return nil
		}
		meta = old
	}
	where := replyTo{chat: meta.chat, user: cb.User.ID}
	var text string
	var picked []int
	if st := cb.View.State; st != nil {
		text = st.Values[otherBlockID][otherActionID].Value
		choice := st.Values[choiceBlockID][choiceActionID]
		sel := choice.SelectedOptions
		if choice.SelectedOption.Value != "" {
			sel = append(sel, choice.SelectedOption)
		}
		for _, o := range sel {
			if k, ok := optionIndex(o.Value); ok {
				picked = append(picked, k)
			}
		}
	}
	in := broker.Inbound{
		Channel: Name, Chat: chatOf(meta.chat, cb.User.ID), User: cb.User.ID, Name: userName(cb.User),
		Private: isDM(meta.chat),
	}
	cmd, ok := broker.Step{Kind: broker.StepPick, Ref: meta.step.Ref, Options: picked}.Command(text)
	if !ok {
		// Sent with no option and no text: said in the modal's language.
		return c.telling(where, c.dialogWords(ctx, in, meta.step.Ref.ID).T("dialog.slack.none_given"))
	}
	in.Text = cmd
	return c.dispatch(ctx, in, where)
}

// slashCommand records /answer, /decline, /discuss and /pending.
func (c *Channel) slashCommand(ctx context.Context, s slackapi.SlashCommand) followUp {
	if !slashCommands[s.Command] {
		c.log.Debug("unknown slash command", "command", s.Command)
		return nil
	}
	if s.ChannelID == "" || s.UserID == "" {
		c.log.Warn("slash command without channel_id or user_id dropped", "command", s.Command)
		return nil
	}
	return c.dispatch(ctx, broker.Inbound{
		Channel: Name, Chat: chatOf(s.ChannelID, s.UserID), User: s.UserID, Name: s.UserName,
		Text:    strings.TrimSpace(s.Command + " " + s.Text),
		Private: isDM(s.ChannelID) || s.ChannelName == "directmessage",
	}, replyTo{chat: s.ChannelID, user: s.UserID, responseURL: s.ResponseURL})
}

// leadingMentions matches "@bot " mentions before a typed command.
var leadingMentions = regexp.MustCompile(`^(\s*<@[A-Z0-9]+(\|[^>]*)?>)+\s*`)

// eventsAPI records one Events API event; the caller has made sure it is
// taken once (takeOnce, socketEventOnce).
func (c *Channel) eventsAPI(ctx context.Context, ev slackevents.EventsAPIEvent) followUp {
	if m, ok := ev.InnerEvent.Data.(*slackevents.MessageEvent); ok {
		return c.message(ctx, m)
	}
	return nil
}

// message records a message a person typed: a command, or a reply in a
// question's thread, with the files shared with it (file_share). Bot
// messages, edits, joins and other subtypes are ignored.
func (c *Channel) message(ctx context.Context, m *slackevents.MessageEvent) followUp {
	if (m.SubType != "" && m.SubType != "file_share") || m.BotID != "" || m.User == "" {
		return nil
	}
	text := strings.TrimSpace(leadingMentions.ReplaceAllString(unescapeMessage(m.Text), ""))
	files := c.messageFiles(m)
	if text == "" && len(files) == 0 {
		return nil
	}
	in := broker.Inbound{
		Channel: Name, Chat: chatOf(m.Channel, m.User), User: m.User, Text: text,
		Private: m.ChannelType == "im" || isDM(m.Channel), Attachments: files,
	}
	if m.ThreadTimeStamp != "" && m.ThreadTimeStamp != m.TimeStamp {
		in.ReplyTo = messageID(m.Channel, m.ThreadTimeStamp)
	}
	in.Name = c.userName(ctx, m.User)
	return c.dispatch(ctx, in, replyTo{chat: m.Channel, user: m.User, threadTS: m.ThreadTimeStamp})
}

// dispatch hands in to the broker, which records it, and returns the
// showing of the broker's reply to the person, as an ephemeral message
// where they acted.
func (c *Channel) dispatch(ctx context.Context, in broker.Inbound, where replyTo) followUp {
	reply := c.h.HandleInbound(ctx, in)
	if reply.Ignored || reply.Text == "" {
		return nil
	}
	if !reply.OK {
		c.log.Info("action refused", "chat", in.Chat, "user", in.User, "reply", reply.Text)
	}
	return c.telling(where, reply.Text)
}

// telling returns the showing of text to a person, for after the ack.
func (c *Channel) telling(where replyTo, text string) followUp {
	return func(ctx context.Context) { c.tell(ctx, where, text) }
}
