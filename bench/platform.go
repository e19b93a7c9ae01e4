package bench

import (
	"context"
	"fmt"
	"log/slog"
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
	"github.com/askbridge/askbridge/channels/telegram"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
	"github.com/askbridge/askbridge/store/sqlite"
)

// The fake Telegram of the platform runs.
const (
	fakeToken    = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	fakeTokenEnv = "ASKBENCH_TELEGRAM_TOKEN"
)

var (
	fakeBot    = telegramfake.User{ID: 777000111, FirstName: "Ask Bridge", Username: "askbridge_bot"}
	fakePerson = telegramfake.User{ID: 42, FirstName: "Ana", Username: "ana"}
	fakeTeam   = telegramfake.Chat{ID: -1001234567890, Type: "supergroup", Title: "Team"}
)

// platformRig is a broker on SQLite with the text channel and the
// Telegram channel, the latter talking to a fake Bot API through a proxy
// that can cut the link.
type platformRig struct {
	dir   string
	fake  *telegramfake.Server
	proxy *cutProxy
	st    *sqlite.Store
	b     *broker.Broker
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

func startPlatformRig(ctx context.Context) (*platformRig, error) {
	dir, err := os.MkdirTemp("", "askbench-platform-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	r := &platformRig{dir: dir}
	r.fake = telegramfake.New(fakeToken, fakeBot)
	r.fake.AddChat(fakeTeam)
	if r.proxy, err = newCutProxy(r.fake.URL()); err != nil {
		r.close()
		return nil, err
	}
	if r.st, err = sqlite.Open(ctx, filepath.Join(dir, "askbridge.db")); err != nil {
		r.close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	targets := []broker.Target{{Channel: telegram.Name, Chat: strconv.FormatInt(fakeTeam.ID, 10)}, {Channel: cli.Name}}
	r.b, err = broker.New(broker.Config{Store: r.st, Logger: quiet,
		Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: targets}}})
	if err != nil {
		r.close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	outbox.Attach(r.b, r.st, outbox.Config{Poll: 100 * time.Millisecond})
	if err := os.Setenv(fakeTokenEnv, fakeToken); err != nil {
		r.close()
		return nil, err
	}
	tlog := quiet
	if os.Getenv("ASKBENCH_DEBUG") != "" {
		tlog = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	tg, err := telegram.New(telegram.Config{TokenEnv: fakeTokenEnv, APIURL: r.proxy.URL(), PollTimeout: time.Second}, r.b, channels.Options{Logger: tlog})
	if err != nil {
		r.close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	r.b.Register(tg)
	text, err := cli.New(cli.Config{}, r.b, channels.Options{})
	if err != nil {
		r.close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	r.b.Register(text)
	rctx, cancel := context.WithCancel(ctx)
	r.stop = cancel
	r.wg.Add(3)
	go func() { defer r.wg.Done(); r.b.Run(rctx) }()
	go func() { defer r.wg.Done(); r.b.RunOutbox(rctx) }()
	go func() { defer r.wg.Done(); _ = tg.Run(rctx) }()
	return r, nil
}

func (r *platformRig) close() {
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
	if r.proxy != nil {
		r.proxy.Close()
	}
	if r.fake != nil {
		r.fake.Close()
	}
	removeAll(r.dir)
}

// askAll asks questions 0…n-1, eight at a time, and returns their ids
// in that order.
func (r *platformRig) askAll(ctx context.Context, n int) ([]string, error) {
	ids := make([]string, n)
	err := parallel(ctx, 8, n, func(i int) error {
		q, err := r.ask(ctx, i)
		if err == nil {
			ids[i] = q.ID
		}
		return err
	})
	return ids, err
}

// ask asks one 4-option question as agent "agent".
func (r *platformRig) ask(ctx context.Context, i int) (*broker.Question, error) {
	opts := []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}, {Label: "MySQL"}, {Label: "Redis"}}
	q, _, err := r.b.Ask(ctx, "agent", &broker.AskRequest{SessionID: "fault", ToolCallID: "q" + strconv.Itoa(i),
		Question: "Which database should the service use?", Options: opts})
	if err != nil {
		return nil, fmt.Errorf("ask %d: %w", i, err)
	}
	return q, nil
}

// telegramCopy returns the id of the question's message in the fake, or 0.
func (r *platformRig) telegramCopy(ctx context.Context, id string) int {
	refs, err := r.st.Messages(ctx, id)
	if err != nil {
		return 0
	}
	for _, m := range refs {
		if m.Channel == telegram.Name {
			n, _ := strconv.Atoi(m.MessageID)
			return n
		}
	}
	return 0
}

// tap presses the SQLite button of the question's message.
func (r *platformRig) tap(msgID int) (string, error) {
	m, ok := r.fake.Message(fakeTeam.ID, msgID)
	if !ok {
		return "", fmt.Errorf("message %d not found", msgID)
	}
	for _, row := range m.Keyboard {
		for _, b := range row {
			if strings.Contains(b.Text, chosenLabel) {
				return r.fake.Tap(fakePerson, fakeTeam.ID, msgID, b.CallbackData), nil
			}
		}
	}
	return "", fmt.Errorf("message %d has no %s button: %+v", msgID, chosenLabel, m.Keyboard)
}

// answerText answers through the text channel, the path of `bridge answer`.
func (r *platformRig) answerText(ctx context.Context, id string) error {
	reply := r.b.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "responder", Name: "responder",
		Text: fmt.Sprintf("/answer %s %d", id, chosen)})
	if !reply.OK {
		return fmt.Errorf("answer %s: %s", id, reply.Text)
	}
	return nil
}

// edited reports whether the copy shows the outcome with no buttons left.
func (r *platformRig) edited(msgID int) bool {
	m, ok := r.fake.Message(fakeTeam.ID, msgID)
	return ok && m.Edits > 0 && len(m.Keyboard) == 0 && strings.Contains(m.Text, chosenLabel)
}
