package discordfake

import (
	"context"
	"fmt"

	"github.com/askbridge/askbridge/channels/channeltest"
)

// selectKinds names the select menus a message may carry, by component
// type.
var selectKinds = map[int]string{
	TypeStringMenu: "string select",
	5:              "user select",
	6:              "role select",
	7:              "mentionable select",
	8:              "channel select",
}

// widgets returns the select menus among cs, in order, as the harness
// shows them: a menu carries its custom_id, and each option its value.
func widgets(cs []Component) []channeltest.Widget {
	var out []channeltest.Widget
	for _, c := range cs {
		if kind, ok := selectKinds[c.Type]; ok {
			w := channeltest.Widget{Kind: kind, ID: c.CustomID, Data: c.CustomID, Value: c.CustomID}
			for _, o := range c.Options {
				w.Options = append(w.Options, channeltest.Choice{Label: o.Label, Value: o.Value})
			}
			out = append(out, w)
		}
		out = append(out, widgets(c.Components)...)
	}
	return out
}

// Choose submits the select menu w of m with the values of the options
// at positions picked. When the bot answers with a form (a note that may
// follow the choice), the person sends it with its fields left empty; a
// form with a required field is an error, since a person could not send
// it so.
func (h *harness) Choose(chat string, m channeltest.Message, w channeltest.Widget, picked ...int) (channeltest.Told, error) {
	if err := h.ready(); err != nil {
		return channeltest.Told{}, err
	}
	msg := h.s.Message(m.ID)
	if msg == nil {
		return channeltest.Told{}, fmt.Errorf("discordfake: no message %s in %s", m.ID, chat)
	}
	values := make([]string, len(picked))
	for i, k := range picked {
		if k < 0 || k >= len(w.Options) {
			return channeltest.Told{}, fmt.Errorf("discordfake: the menu %s has no option at %d", w.ID, k)
		}
		values[i] = w.Options[k].Value
	}
	ctx, cancel := context.WithTimeout(context.Background(), channeltest.WaitLimit)
	defer cancel()
	id := h.s.Choose(h.person, msg, w.Value, values...)
	r, err := h.s.WaitResponse(ctx, id)
	if err != nil {
		return channeltest.Told{}, err
	}
	if r.Type != ResponseModal {
		return h.told(ctx, id)
	}
	if r.Data == nil {
		return channeltest.Told{}, fmt.Errorf("discordfake: the form after the menu %s has no data", w.ID)
	}
	var fields []string
	if r.Data.Components != nil {
		for _, row := range *r.Data.Components {
			for _, in := range row.Components {
				if in.Required {
					return channeltest.Told{}, fmt.Errorf("discordfake: the form %q after the menu requires %q", r.Data.Title, in.Label)
				}
				fields = append(fields, in.CustomID, "")
			}
		}
	}
	return h.told(ctx, h.s.SubmitModalFields(h.person, msg, r.Data.CustomID, fields...))
}
