package slack

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/askbridge/askbridge/broker"
)

// The slash commands the app registers (deploy/slack-manifest.yaml).
var slashCommands = map[string]bool{
	"/answer": true, "/decline": true, "/discuss": true, "/pending": true,
}

// noneTicked is said when Submit is pressed with no checkbox ticked.
const noneTicked = "Tick at least one option, then press Submit."

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

// blockAction records one tapped element of a question message.
func (c *Channel) blockAction(ctx context.Context, cb slackapi.InteractionCallback, a *slackapi.BlockAction) followUp {
	chat := cb.Channel.ID
	if chat == "" {
		chat = cb.Container.ChannelID
	}
	in := broker.Inbound{Channel: Name, Chat: chatOf(chat, cb.User.ID), User: cb.User.ID, Name: userName(cb.User), Private: isDM(chat)}
	switch {
	case strings.HasPrefix(a.ActionID, actionOptionPrefix), a.ActionID == actionSkip, a.ActionID == actionDecline, a.ActionID == actionDiscuss, a.ActionID == actionSnooze:
		in.Text = a.Value
	case a.ActionID == actionSubmit:
		ref, err := decodeRef(a.Value)
		if err != nil {
			c.log.Warn("submit with a bad reference", "chat", chat, "err", err)
			return nil
		}
		picked := tickedOptions(cb.BlockActionState, a.BlockID)
		if len(picked) == 0 {
			return c.telling(replyTo{chat: chat, user: in.User, threadTS: cb.Container.ThreadTs, responseURL: cb.ResponseURL}, noneTicked)
		}
		in.Text = broker.FormatOption(ref.ref(), picked...)
	case a.ActionID == actionOther:
		ref, err := decodeRef(a.Value)
		if err != nil {
			c.log.Warn("other with a bad reference", "chat", chat, "err", err)
			return nil
		}
		ref.Chat = chat
		if ref.Multi {
			ref.Picked = tickedOptions(cb.BlockActionState, a.BlockID)
		}
		// Nothing to record: the modal opens once the tap is acknowledged.
		return func(ctx context.Context) { c.openOther(ctx, cb.TriggerID, ref) }
	default:
		return nil // a checkbox tick: its state arrives with Submit
	}
	return c.dispatch(ctx, in, replyTo{chat: chat, user: in.User, threadTS: cb.Container.ThreadTs, responseURL: cb.ResponseURL})
}

// tickedOptions reads the 0-based indexes of the ticked checkboxes of an
// actions block from a block_actions payload's state.values.
func tickedOptions(state *slackapi.BlockActionStates, blockID string) []int {
	if state == nil {
		return nil
	}
	var out []int
	for _, o := range state.Values[blockID][actionPick].SelectedOptions {
		if k, err := strconv.Atoi(o.Value); err == nil && k >= 0 && k < broker.MaxOptions {
			out = append(out, k)
		}
	}
	return broker.SelectedOptions(out)
}

// noneGiven is said when the modal is sent with no option and no text.
const noneGiven = "Choose an option or type an answer: nothing was recorded."

// openOther opens the modal in which a person types an Other answer or,
// when the prompt has options, picks some and adds the text as a note.
func (c *Channel) openOther(ctx context.Context, triggerID string, ref promptRef) {
	blocks := []slackapi.Block{section("question", escapeLimit(ref.Question, maxSectionText))}
	textLabel := "Your answer"
	if len(ref.Options) > 0 {
		blocks = append(blocks, choiceInput(ref))
		textLabel = "Other answer, or a note to go with your choice"
	}
	input := slackapi.NewPlainTextInputBlockElement(plain("Type here", 150), otherActionID)
	input.Multiline = true
	input.MaxLength = 2000
	text := slackapi.NewInputBlock(otherBlockID, plain(textLabel, maxModalLabel), nil, input)
	text.Optional = len(ref.Options) > 0
	blocks = append(blocks, text)
	title := "Other answer"
	if len(ref.Options) > 0 {
		title = "Other answer or note"
	}
	view := slackapi.ModalViewRequest{
		Type:            slackapi.VTModal,
		Title:           plain(title, 24),
		Submit:          plain("Send", 24),
		Close:           plain("Cancel", 24),
		CallbackID:      otherCallbackID,
		PrivateMetadata: ref.encodeWithin(maxPrivateMetadata),
		Blocks:          slackapi.Blocks{BlockSet: blocks},
	}
	if _, err := c.api.OpenViewContext(ctx, triggerID, view); err != nil {
		c.log.Warn("views.open failed", "question_id", ref.ID, "chat", ref.Chat, "err", err)
	}
}

// choiceInput is the modal's optional radio buttons (one answer) or
// checkboxes (several), with the options ticked in the message ticked.
func choiceInput(ref promptRef) *slackapi.InputBlock {
	opts := make([]*slackapi.OptionBlockObject, len(ref.Options))
	for k, label := range ref.Options {
		opts[k] = slackapi.NewOptionBlockObject(strconv.Itoa(k), plain(label, maxOptionText), nil)
	}
	var el slackapi.BlockElement
	label := "Your choice"
	if ref.Multi {
		boxes := slackapi.NewCheckboxGroupsBlockElement(choiceActionID, opts...)
		for _, k := range ref.Picked {
			if k >= 0 && k < len(opts) {
				boxes.InitialOptions = append(boxes.InitialOptions, opts[k])
			}
		}
		el, label = boxes, "Your choices"
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
	ref, err := decodeRef(cb.View.PrivateMetadata)
	if err != nil || ref.Chat == "" {
		c.log.Warn("other answer with bad metadata", "err", err)
		return nil
	}
	where := replyTo{chat: ref.Chat, user: cb.User.ID}
	var text string
	var picked []int
	if st := cb.View.State; st != nil {
		text = strings.TrimSpace(st.Values[otherBlockID][otherActionID].Value)
		choice := st.Values[choiceBlockID][choiceActionID]
		sel := choice.SelectedOptions
		if choice.SelectedOption.Value != "" {
			sel = append(sel, choice.SelectedOption)
		}
		for _, o := range sel {
			if k, err := strconv.Atoi(o.Value); err == nil && k >= 0 && k < len(ref.Options) {
				picked = append(picked, k)
			}
		}
	}
	if text == "" && len(picked) == 0 {
		return c.telling(where, noneGiven)
	}
	return c.dispatch(ctx, broker.Inbound{
		Channel: Name, Chat: chatOf(ref.Chat, cb.User.ID), User: cb.User.ID, Name: userName(cb.User),
		Text:    broker.FormatOptionsOther(ref.ref(), broker.SelectedOptions(picked), text),
		Private: isDM(ref.Chat),
	}, where)
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
