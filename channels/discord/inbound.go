package discord

import (
	"context"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/bwmarrin/discordgo"
)

// response is an interaction response. discordgo's InteractionResponseData
// has no omitempty on its fields, which would send empty content and null
// components with a modal; this type sends exactly what each response
// type needs, and an explicit empty components list where buttons go.
type response struct {
	Type discordgo.InteractionResponseType `json:"type"`
	Data *responseData                     `json:"data,omitempty"`
}

type responseData struct {
	Content         string                            `json:"content,omitempty"`
	Components      *[]discordgo.MessageComponent     `json:"components,omitempty"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions,omitempty"`
	Flags           discordgo.MessageFlags            `json:"flags,omitempty"`
	CustomID        string                            `json:"custom_id,omitempty"`
	Title           string                            `json:"title,omitempty"`
}

// Application command names and option names.
const (
	cmdAnswer  = "answer"
	cmdDecline = "decline"
	cmdDiscuss = "discuss"
	cmdPending = "pending"
	optID      = "id"
	optChoice  = "choice"
	optReason  = "reason"
	optMessage = "message"
)

// interact turns one interaction into broker.Inbound text, hands it to
// the broker, and returns what the person is shown.
func (c *Channel) interact(ctx context.Context, i *discordgo.Interaction) response {
	switch i.Type {
	case discordgo.InteractionPing:
		return response{Type: discordgo.InteractionResponsePong}
	case discordgo.InteractionApplicationCommand:
		text, err := commandText(i.ApplicationCommandData())
		if err != nil {
			return ephemeral(err.Error())
		}
		in := c.inboundFrom(i, text)
		return ephemeral(c.replyText(in, c.h.HandleInbound(ctx, in)))
	case discordgo.InteractionMessageComponent:
		return c.tap(ctx, i)
	case discordgo.InteractionModalSubmit:
		return c.submit(ctx, i)
	}
	return ephemeral(c.words(c.inboundFrom(i, "").User).T("dialog.discord.unsupported"))
}

// afterTap answers a component on the question message: an accepted
// action updates the message in place (type 7), anything else is told to
// the person alone (ephemeral). in is the action.
func (c *Channel) afterTap(in broker.Inbound, reply broker.Reply) response {
	if !reply.OK || reply.Question == nil {
		return ephemeral(c.replyText(in, reply))
	}
	m := render(reply.Question, c.view(reply.Question))
	return response{Type: discordgo.InteractionResponseUpdateMessage, Data: &responseData{
		Content: m.Content, Components: &m.Components, AllowedMentions: noMentions(),
	}}
}

// replyText is the broker's reply to in, or, when it says nothing, the
// channel's word for done or nothing to do in the person's language.
func (c *Channel) replyText(in broker.Inbound, r broker.Reply) string {
	if r.Text == "" {
		if r.OK {
			return c.words(in.User).T("dialog.discord.done")
		}
		return c.words(in.User).T("dialog.discord.nothing")
	}
	return r.Text
}

// ephemeral is a message only the acting person sees.
func ephemeral(text string) response {
	empty := []discordgo.MessageComponent{}
	return response{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: &responseData{
		Content: cutUnits(escape(text), maxContent), Components: &empty,
		AllowedMentions: noMentions(), Flags: discordgo.MessageFlagsEphemeral,
	}}
}

// maxNote bounds what a person types in a modal (Discord allows 4000);
// the labels and placeholders of the catalog fit Discord's 45 and 100
// characters in every language (TestModalLimits).
const maxNote = 1000

// tap answers a component of the question message: a button or a
// menu. Its custom id is a step (customid.go): a step that opens a form
// is answered with the form, any other sends the step's command.
func (c *Channel) tap(ctx context.Context, i *discordgo.Interaction) response {
	data := i.MessageComponentData()
	in := c.inboundFrom(i, "")
	s, err := readStep(data.CustomID)
	if err != nil {
		return ephemeral(c.words(in.User).T("dialog.discord.control_unknown"))
	}
	switch {
	case s.Legacy != "":
	case s.Kind == broker.StepOther:
		return otherModal(c.dialogWords(ctx, in, s.Ref.ID), s.Ref, false)
	case s.Kind == broker.StepNote:
		return otherModal(c.dialogWords(ctx, in, s.Ref.ID), s.Ref, true)
	case s.Kind == broker.StepPick || s.Kind == broker.StepWithNote:
		picked, bad := menuOptions(data.Values)
		if bad != nil {
			return ephemeral(bad.say(c.words(in.User)))
		}
		s.Options = picked
		// Options beyond a prompt's go to the broker at once, which
		// refuses them with its words.
		if s.Kind == broker.StepWithNote && picked[len(picked)-1] < broker.MaxOptions {
			return noteModal(c.dialogWords(ctx, in, s.Ref.ID), s)
		}
	}
	cmd, ok := s.Command("")
	if !ok {
		return ephemeral(c.words(in.User).T("dialog.discord.control_unknown"))
	}
	in.Text = cmd
	return c.afterTap(in, c.h.HandleInbound(ctx, in))
}

// submit answers a form: the Other form (text, and option numbers when
// the prompt has options) or the note form after the menu. It sends the
// form's step with what was typed.
func (c *Channel) submit(ctx context.Context, i *discordgo.Interaction) response {
	data := i.ModalSubmitData()
	in := c.inboundFrom(i, "")
	s, err := readStep(data.CustomID)
	if err != nil || s.Legacy != "" || (s.Kind != broker.StepOther && s.Kind != broker.StepWithNote) {
		return ephemeral(c.words(in.User).T("dialog.discord.form_unknown"))
	}
	if numbers := modalText(data.Components, numbersInputID); numbers != "" {
		var bad *badOption
		if s.Options, bad = typedNumbers(numbers); bad != nil {
			return ephemeral(bad.say(c.dialogWords(ctx, in, s.Ref.ID)))
		}
	}
	cmd, ok := s.Command(modalText(data.Components, textInputID))
	if !ok {
		return ephemeral(c.dialogWords(ctx, in, s.Ref.ID).T("dialog.discord.empty_answer"))
	}
	in.Text = cmd
	reply := c.h.HandleInbound(ctx, in)
	if i.Message == nil {
		return ephemeral(c.replyText(in, reply))
	}
	return c.afterTap(in, reply)
}

// otherModal asks for the free-text answer of prompt r; withNumbers (the
// prompt has options) also for the option numbers the text goes with,
// which makes the text a note beside them. Its words are printed by w.
func otherModal(w *i18n.Printer, r broker.PromptRef, withNumbers bool) response {
	title := w.T("dialog.discord.title_answer")
	if r.Count > 1 {
		title = w.T("dialog.discord.title_answer_n", r.Index+1)
	}
	text := discordgo.TextInput{
		CustomID: textInputID, Label: w.T("dialog.discord.label_answer"), Style: discordgo.TextInputParagraph,
		Required: true, MinLength: 1, MaxLength: maxNote,
	}
	var rows []discordgo.MessageComponent
	if withNumbers {
		title = w.T("dialog.discord.title_note")
		if r.Count > 1 {
			title = w.T("dialog.discord.title_note_n", r.Index+1)
		}
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.TextInput{
			CustomID: numbersInputID, Label: w.T("dialog.discord.label_numbers"), Style: discordgo.TextInputShort,
			Placeholder: w.T("dialog.discord.placeholder_numbers"), MaxLength: 20,
		}}})
		text.Label, text.Required, text.MinLength = w.T("dialog.discord.label_answer_note"), false, 0
	}
	rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{text}})
	return modalResponse(broker.EncodeStep(broker.Step{Kind: broker.StepOther, Ref: r}), title, rows)
}

// noteModal asks, after options were chosen in the menu, for an optional
// note to go with them (s carries them); sending it empty records the
// options alone. Its words are printed by w.
func noteModal(w *i18n.Printer, s broker.Step) response {
	title := w.T("dialog.discord.title_add_note")
	if s.Ref.Count > 1 {
		title = w.T("dialog.discord.title_add_note_n", s.Ref.Index+1)
	}
	rows := []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.TextInput{
			CustomID: textInputID, Label: w.T("dialog.discord.label_note"), Style: discordgo.TextInputParagraph,
			Placeholder: w.T("dialog.discord.placeholder_note"), Required: false, MaxLength: maxNote,
		},
	}}}
	return modalResponse(broker.EncodeStep(s), title, rows)
}

func modalResponse(customID, title string, rows []discordgo.MessageComponent) response {
	return response{Type: discordgo.InteractionResponseModal, Data: &responseData{
		CustomID: customID, Title: truncate(title, maxModalTitle), Components: &rows,
	}}
}

// modalText returns what was typed in the text input id, or "".
func modalText(comps []discordgo.MessageComponent, id string) string {
	for _, c := range comps {
		switch v := c.(type) {
		case *discordgo.ActionsRow:
			if t := modalText(v.Components, id); t != "" {
				return t
			}
		case *discordgo.TextInput:
			if v.CustomID == id {
				return v.Value
			}
		}
	}
	return ""
}

// commandText turns /answer, /decline, /discuss and /pending into the broker's
// command text; the broker parses and checks it.
func commandText(d discordgo.ApplicationCommandInteractionData) (string, error) {
	opt := func(name string) string {
		if o := d.GetOption(name); o != nil {
			if s, ok := o.Value.(string); ok {
				return strings.TrimSpace(s)
			}
			return strings.TrimSpace(fmt.Sprint(o.Value))
		}
		return ""
	}
	switch d.Name {
	case cmdAnswer:
		return strings.TrimSpace("/answer " + opt(optID) + " " + opt(optChoice)), nil
	case cmdDecline:
		return strings.TrimSpace("/decline " + opt(optID) + " " + opt(optReason)), nil
	case cmdDiscuss:
		return strings.TrimSpace("/discuss " + opt(optID) + " " + opt(optMessage)), nil
	case cmdPending:
		return "/pending", nil
	}
	return "", fmt.Errorf("/%s is not a command of this bot", d.Name)
}

// inboundFrom says who acted where.
func (c *Channel) inboundFrom(i *discordgo.Interaction, text string) broker.Inbound {
	in := broker.Inbound{Channel: Name, Chat: i.ChannelID, Text: text, Private: i.GuildID == ""}
	u := i.User
	if i.Member != nil {
		in.Roles = append([]string(nil), i.Member.Roles...)
		if i.Member.User != nil {
			u = i.Member.User
		}
	}
	if u != nil {
		in.User, in.Name = u.ID, u.Username
		if in.Private {
			in.Chat = dmChat(u.ID)
		}
	}
	return in
}

// commands are the application commands the bot registers: the broker's
// grammar, with the question id and the choice as separate options.
func commands() []*discordgo.ApplicationCommand {
	str := func(name, desc string, required bool) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: name, Description: desc, Required: required}
	}
	return []*discordgo.ApplicationCommand{
		{Name: cmdAnswer, Type: discordgo.ChatApplicationCommand, Description: "Answer a question from an agent",
			Options: []*discordgo.ApplicationCommandOption{
				str(optID, "The question id, such as k7m2qx (k7m2qx.2 for the second question of a dialog)", true),
				str(optChoice, "2, 1,3, an option label, other <text>, 1,3 other <note>, or skip", true),
			}},
		{Name: cmdDecline, Type: discordgo.ChatApplicationCommand, Description: "Decline to answer a question from an agent",
			Options: []*discordgo.ApplicationCommandOption{
				str(optID, "The question id, such as k7m2qx", true),
				str(optReason, "Why (shown to the agent)", false),
			}},
		{Name: cmdDiscuss, Type: discordgo.ChatApplicationCommand, Description: "Not ready to answer: tell the agent you want to talk first",
			Options: []*discordgo.ApplicationCommandOption{
				str(optID, "The question id, such as k7m2qx", true),
				str(optMessage, "What to clarify (shown to the agent)", false),
			}},
		{Name: cmdPending, Type: discordgo.ChatApplicationCommand, Description: "List the open questions in this channel",
			Options: []*discordgo.ApplicationCommandOption{}},
	}
}
