package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/channels/slack"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/channels/telegram"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
	"github.com/askbridge/askbridge/store/sqlite"
)

// The fake Slack of the two-platform runs.
const (
	fakeSlackChannel = "C0BURST"
	slackBotEnv      = "ASKBENCH_SLACK_BOT_TOKEN"
	slackAppEnv      = "ASKBENCH_SLACK_APP_TOKEN"
	// goneRoute sends to a Telegram chat that does not exist: every
	// target fails for good.
	goneRoute = "gone"
	goneChat  = "-1009999999999"
)

// pairRig is a broker on SQLite with the text channel, Telegram and
// Slack, each platform's fake behind a rateFront.
type pairRig struct {
	dir    string
	tg     *telegramfake.Server
	sl     *slackfake.Server
	tgGate *rateFront
	slGate *rateFront
	st     *sqlite.Store
	b      *broker.Broker
	stop   context.CancelFunc
	wg     sync.WaitGroup
}

// pairOptions set the fronts' limit (calls per chat per second, 0 for
// none) and delay, and the broker's outbox configuration.
type pairOptions struct {
	limit  int
	delay  time.Duration
	outbox outbox.Config
}

func startPairRig(ctx context.Context, o pairOptions) (*pairRig, error) {
	dir, err := os.MkdirTemp("", "askbench-pair-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	r := &pairRig{dir: dir}
	ok := false
	defer func() {
		if !ok {
			r.close()
		}
	}()
	r.tg = telegramfake.New(fakeToken, fakeBot)
	r.tg.AddChat(fakeTeam)
	r.sl = slackfake.Start()
	if r.tgGate, err = newRateFront(r.tg.URL(), styleTelegram, o.limit, o.delay); err != nil {
		return nil, err
	}
	if r.slGate, err = newRateFront(strings.TrimSuffix(r.sl.URL, "/api"), styleSlack, o.limit, o.delay); err != nil {
		return nil, err
	}
	if r.st, err = sqlite.Open(ctx, filepath.Join(dir, "askbridge.db")); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	routes := map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{
			{Channel: telegram.Name, Chat: strconv.FormatInt(fakeTeam.ID, 10)},
			{Channel: slack.Name, Chat: fakeSlackChannel}, {Channel: cli.Name}}},
		goneRoute: {Targets: []broker.Target{{Channel: telegram.Name, Chat: goneChat}}},
	}
	if r.b, err = broker.New(broker.Config{Store: r.st, Logger: quiet, Routes: routes}); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	outbox.Attach(r.b, r.st, o.outbox)
	for k, v := range map[string]string{fakeTokenEnv: fakeToken, slackBotEnv: slackfake.BotToken, slackAppEnv: slackfake.AppToken} {
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	tg, err := telegram.New(telegram.Config{TokenEnv: fakeTokenEnv, APIURL: r.tgGate.URL(), PollTimeout: time.Second}, r.b, channels.Options{Logger: quiet})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	sl, err := slack.New(slack.Config{BotTokenEnv: slackBotEnv, AppTokenEnv: slackAppEnv, APIURL: r.slGate.URL() + "/api"}, r.b, channels.Options{Logger: quiet})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	text, err := cli.New(cli.Config{}, r.b, channels.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	r.b.Register(tg)
	r.b.Register(sl)
	r.b.Register(text)
	rctx, cancel := context.WithCancel(ctx)
	r.stop = cancel
	r.wg.Add(2)
	go func() { defer r.wg.Done(); r.b.Run(rctx) }()
	go func() { defer r.wg.Done(); r.b.RunOutbox(rctx) }()
	ok = true
	return r, nil
}

func (r *pairRig) close() {
	if r.stop != nil {
		r.stop()
		r.wg.Wait()
	}
	if r.b != nil {
		r.b.Close()
	}
	if r.st != nil {
		_ = r.st.Close()
	}
	for _, f := range []*rateFront{r.tgGate, r.slGate} {
		if f != nil {
			f.Close()
		}
	}
	if r.tg != nil {
		r.tg.Close()
	}
	if r.sl != nil {
		r.sl.Close()
	}
	removeAll(r.dir)
}

// copyCounts counts, per question, the copies each fake holds: top-level
// messages naming the question.
func (r *pairRig) copyCounts(ids []string) (tg, sl map[string]int) {
	tg, sl = map[string]int{}, map[string]int{}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, m := range r.tg.BotMessages(fakeTeam.ID) {
		if m.ReplyTo == 0 {
			if id := questionIn(m.Text, want); id != "" {
				tg[id]++
			}
		}
	}
	for _, m := range r.sl.Messages() {
		if m.Channel == fakeSlackChannel && m.ThreadTS == "" {
			if id := questionIn(m.Text+string(m.Blocks), want); id != "" {
				sl[id]++
			}
		}
	}
	return tg, sl
}

// questionIn returns the first id of want that s names.
func questionIn(s string, want map[string]bool) string {
	for id := range want {
		if strings.Contains(s, id) {
			return id
		}
	}
	return ""
}

// unedited counts the recorded platform copies of ids that do not show the
// outcome with their buttons gone.
func (r *pairRig) unedited(ctx context.Context, ids []string) int {
	n := 0
	for _, id := range ids {
		refs, err := r.st.Messages(ctx, id)
		if err != nil {
			n++
			continue
		}
		for _, m := range refs {
			switch m.Channel {
			case telegram.Name:
				msg, _ := strconv.Atoi(m.MessageID)
				got, ok := r.tg.Message(fakeTeam.ID, msg)
				if !ok || got.Edits == 0 || len(got.Keyboard) > 0 || !strings.Contains(got.Text, chosenLabel) {
					n++
				}
			case slack.Name:
				got, ok := r.sl.Message(m.Chat, m.MessageID)
				if !ok || got.Updates == 0 || len(got.Buttons()) > 0 || !strings.Contains(got.Text+string(got.Blocks), chosenLabel) {
					n++
				}
			}
		}
	}
	return n
}

// answerAll answers every question of ids through the text channel.
func (r *pairRig) answerAll(ctx context.Context, ids []string) error {
	return parallel(ctx, 8, len(ids), func(i int) error {
		reply := r.b.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "responder", Name: "responder",
			Text: fmt.Sprintf("/answer %s %d", ids[i], chosen)})
		if !reply.OK {
			return fmt.Errorf("answer %s: %s", ids[i], reply.Text)
		}
		return nil
	})
}
