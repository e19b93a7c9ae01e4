package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
)

// burstWithin is how long a burst may take to be posted.
const burstWithin = time.Minute

// RunBurst runs burst in-process: cfg.Agents questions at once to one
// Telegram group and one Slack channel, whose fakes allow cfg.Rate
// messages a second per chat and answer 429 with retry_after beyond it;
// the broker's pacing for both is set to the same rate (or to cfg.Pace). Every question
// must have exactly one copy on each platform within burstWithin, and no
// chat may have taken more than cfg.Rate calls in any second.
func RunBurst(ctx context.Context, cfg FaultConfig, log func(string)) (*FaultResult, error) {
	n := max(cfg.Agents, 1)
	rate := max(cfg.Rate, 1)
	every := time.Second / time.Duration(rate)
	if cfg.Pace > 0 {
		every = time.Second / time.Duration(cfg.Pace)
	}
	rig, err := startPairRig(ctx, pairOptions{limit: rate, outbox: outbox.Config{
		Poll: 100 * time.Millisecond,
		Pacing: map[string]outbox.Pacing{
			"telegram": {PerBot: time.Second / 30, PerChat: every, PerGroup: every},
			"slack":    {PerChat: every, PerGroup: every},
		}}})
	if err != nil {
		return nil, err
	}
	defer rig.close()
	res := &FaultResult{Name: cfg.Name}
	t0 := time.Now()
	ids := make([]string, n)
	err = parallel(ctx, 50, n, func(i int) error {
		q, _, err := rig.b.Ask(ctx, "agent", burstQuestion(i))
		if err == nil {
			ids[i] = q.ID
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d questions asked in %s; the fakes allow %d messages a second per chat, the bridge is paced at one every %s and sends one every %s", n, FormatDuration(time.Since(t0)), rate, every, outbox.PaceSpacing(every)))
	var tg, sl map[string]int
	for deadline := t0.Add(burstWithin + 30*time.Second); ; time.Sleep(100 * time.Millisecond) {
		tg, sl = rig.copyCounts(ids)
		if len(tg) == n && len(sl) == n || time.Now().After(deadline) {
			break
		}
	}
	res.Recovery = time.Since(t0)
	missing, twice := 0, 0
	for _, id := range ids {
		for _, m := range []map[string]int{tg, sl} {
			switch {
			case m[id] == 0:
				missing++
			case m[id] > 1:
				twice++
			}
		}
	}
	postRefused := rig.tgGate.refused() + rig.slGate.refused()
	log(fmt.Sprintf("%d of %d copies posted in %s; %d calls answered 429 (Telegram %d, Slack %d)", len(tg)+len(sl), 2*n,
		FormatDuration(res.Recovery), postRefused, rig.tgGate.refused(), rig.slGate.refused()))
	if err := rig.answerAll(ctx, ids); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(2 * burstWithin); ; time.Sleep(200 * time.Millisecond) {
		res.CopiesUnedited = rig.unedited(ctx, ids)
		if res.CopiesUnedited == 0 || time.Now().After(deadline) {
			break
		}
	}
	busiest := max(rig.tgGate.busiestSecond(), rig.slGate.busiestSecond())
	refused := rig.tgGate.refused() + rig.slGate.refused()
	rig.b.Close()
	res.Asked = n
	if err := checkStore(ctx, rig.st, ids, res); err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%d copies missing, %d posted twice, all posted in %s (limit %s), busiest second of a chat %d calls (limit %d), %d calls answered 429 while posting, %d while editing",
		missing, twice, FormatDuration(res.Recovery), FormatDuration(burstWithin), busiest, rate, postRefused, refused-postRefused))
	res.decide()
	res.OK = res.OK && missing == 0 && twice == 0 && res.Recovery <= burstWithin && busiest <= rate
	return res, nil
}

// burstQuestion is question i of a two-platform run.
func burstQuestion(i int) *broker.AskRequest {
	opts := []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}, {Label: "MySQL"}, {Label: "Redis"}}
	return &broker.AskRequest{SessionID: "fault", ToolCallID: fmt.Sprintf("q%d", i),
		Question: "Which database should the service use?", Options: opts}
}
