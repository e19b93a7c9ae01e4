package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// restartEditWithin is how soon after the platform's return every copy
// must be edited, and claimHold how long an attempt claimed by the killed
// bridge stays invisible to the new one (the broker's task hold: twice the
// 15 s post timeout plus 10 s). An edit under way at the kill is due again
// only then, so the limit is restartEditWithin after the later of the
// return and the end of that hold.
const (
	restartEditWithin = 15 * time.Second
	claimHold         = 40 * time.Second
)

// RunRestartInOutage runs restart-in-outage against `bridge serve` on
// SQLite with the Telegram channel, whose fake sits behind a proxy that
// can cut the link. cfg.Agents questions are asked and posted; the link
// is cut for cfg.Down; during the cut every question is answered through
// the text channel, then the bridge is killed with -9 and started again,
// still during the cut. Once the link is back every copy must be edited
// to the outcome within restartEditWithin, and every question answered
// exactly once.
func RunRestartInOutage(ctx context.Context, cfg FaultConfig, log func(string)) (*FaultResult, error) {
	n := max(cfg.Agents, 1)
	fake := telegramfake.New(fakeToken, fakeBot)
	defer fake.Close()
	fake.AddChat(fakeTeam)
	proxy, err := newCutProxy(fake.URL())
	if err != nil {
		return nil, err
	}
	defer proxy.Close()
	env, err := StartEnv(ctx, EnvConfig{Store: "sqlite", Bridge: cfg.Bridge,
		ExtraConfig: restartConfig(proxy.URL()), Env: []string{fakeTokenEnv + "=" + fakeToken}})
	if err != nil {
		return nil, err
	}
	defer env.Close()
	br := env.Bridges[0]
	api := newAgentAPI(16, true)
	defer api.close()
	res := &FaultResult{Name: cfg.Name}
	ids := make([]string, n)
	if err := parallel(ctx, 8, n, func(i int) error {
		q, err := api.ask(ctx, br.URL, "restart", "q"+strconv.Itoa(i), "0s")
		ids[i] = q.ID
		return err
	}); err != nil {
		return nil, err
	}
	copies := map[string]int{}
	for deadline := time.Now().Add(time.Minute); len(copies) < n && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		copies = telegramCopies(fake, ids)
	}
	if len(copies) < n {
		return nil, fmt.Errorf("restart-in-outage: only %d of %d questions posted before the cut", len(copies), n)
	}
	log(fmt.Sprintf("%d questions asked and posted to Telegram", n))
	proxy.Set(true)
	cutEnd := time.Now().Add(cfg.Down)
	log(fmt.Sprintf("platform cut for %s", cfg.Down))
	if err := parallel(ctx, 8, n, func(i int) error { return api.answer(ctx, br.URL, ids[i], "responder") }); err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d questions answered by text during the cut", n))
	time.Sleep(2 * time.Second) // the edits' first attempts fail against the cut
	log("kill -9 the bridge")
	killed := time.Now()
	br.Kill()
	time.Sleep(time.Second)
	if err := br.Restart(ctx); err != nil {
		return nil, err
	}
	log("bridge restarted, platform still cut")
	if wait := time.Until(cutEnd); wait > 0 {
		time.Sleep(wait)
	} else {
		res.Notes = append(res.Notes, "the restart outlasted the cut")
	}
	proxy.Set(false)
	back := time.Now()
	log("platform back")
	due := back
	if held := killed.Add(claimHold); held.After(due) {
		due = held
	}
	unedited := n
	for deadline := due.Add(restartEditWithin + 20*time.Second); ; time.Sleep(100 * time.Millisecond) {
		unedited = 0
		for _, msg := range copies {
			m, ok := fake.Message(fakeTeam.ID, msg)
			if !ok || m.Edits == 0 || len(m.Keyboard) > 0 || !strings.Contains(m.Text, chosenLabel) {
				unedited++
			}
		}
		if unedited == 0 || time.Now().After(deadline) {
			break
		}
	}
	res.Recovery = time.Since(back)
	res.CopiesUnedited = unedited
	log(fmt.Sprintf("%d of %d copies edited %s after the return", n-unedited, n, FormatDuration(res.Recovery)))
	br.Stop()
	st, err := env.OpenStore(ctx, "")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	res.Asked = n
	if err := checkStore(ctx, st, ids, res); err != nil {
		return nil, err
	}
	twice := 0
	for _, c := range telegramCopyCounts(fake, ids) {
		if c > 1 {
			twice++
		}
	}
	late := back.Add(res.Recovery).Sub(due)
	res.Notes = append(res.Notes, fmt.Sprintf("%d copies posted twice, last copy edited %s after the return and %s after the kill (limit %s after the later of the return and the killed bridge's claims expiring)",
		twice, FormatDuration(res.Recovery), FormatDuration(back.Add(res.Recovery).Sub(killed)), FormatDuration(restartEditWithin)))
	res.decide()
	res.OK = res.OK && twice == 0 && late <= restartEditWithin
	return res, nil
}

// restartConfig is the bridge's configuration of restart-in-outage: the
// Telegram channel against the proxy, its group paced well above the
// run's needs, and the text channel to answer through.
func restartConfig(apiURL string) string {
	return fmt.Sprintf(`log:
  level: warn
channels:
  web:
    disabled: true
  telegram:
    token_env: %s
    api_url: %s
    poll_timeout: 1s
routes:
  default:
    targets: ["telegram:%d", cli]
outbox:
  pacing:
    telegram:
      per_group: 30/s
`, fakeTokenEnv, apiURL, fakeTeam.ID)
}

// telegramCopies returns the message id of each question's first copy in
// the fake's team chat.
func telegramCopies(fake *telegramfake.Server, ids []string) map[string]int {
	out := map[string]int{}
	for _, m := range fake.BotMessages(fakeTeam.ID) {
		if m.ReplyTo != 0 {
			continue
		}
		for _, id := range ids {
			if strings.Contains(m.Text, id) {
				if _, ok := out[id]; !ok {
					out[id] = m.ID
				}
			}
		}
	}
	return out
}

// telegramCopyCounts counts each question's copies in the team chat.
func telegramCopyCounts(fake *telegramfake.Server, ids []string) map[string]int {
	out := map[string]int{}
	for _, m := range fake.BotMessages(fakeTeam.ID) {
		for _, id := range ids {
			if m.ReplyTo == 0 && strings.Contains(m.Text, id) {
				out[id]++
			}
		}
	}
	return out
}
