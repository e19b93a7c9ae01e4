package bench

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// postOutageWithin is how soon after the platform's return every copy
// must be posted.
const postOutageWithin = 10 * time.Second

// RunPostOutage runs post-outage in-process: the link to the fake
// Telegram is cut for cfg.Down while cfg.Agents questions are asked; once
// it is back every question must have its Telegram copy within
// postOutageWithin, none twice. Then every question is answered by text
// and every copy must be edited to the outcome.
func RunPostOutage(ctx context.Context, cfg FaultConfig, log func(string)) (*FaultResult, error) {
	n := max(cfg.Agents, 1)
	rig, err := startPlatformRig(ctx)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	res := &FaultResult{Name: cfg.Name}
	rig.proxy.Set(true)
	cutEnd := time.Now().Add(cfg.Down)
	log(fmt.Sprintf("platform cut for %s", cfg.Down))
	ids, err := rig.askAll(ctx, n)
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d questions asked during the cut", n))
	time.Sleep(time.Until(cutEnd))
	rig.proxy.Set(false)
	back := time.Now()
	log("platform back")
	msgs := make(map[string]int, n)
	for deadline := back.Add(3 * postOutageWithin); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, id := range ids {
			if msgs[id] == 0 {
				msgs[id] = rig.telegramCopy(ctx, id)
			}
		}
		if len(posted(msgs)) == n {
			break
		}
	}
	res.Recovery = time.Since(back)
	missing := n - len(posted(msgs))
	copies := map[string]int{}
	for _, m := range rig.fake.BotMessages(fakeTeam.ID) {
		for _, id := range ids {
			if strings.Contains(m.Text, id) && m.ReplyTo == 0 {
				copies[id]++
			}
		}
	}
	twice := 0
	for _, id := range ids {
		if copies[id] > 1 {
			twice++
		}
	}
	log(fmt.Sprintf("%d of %d questions posted to Telegram %s after the return", n-missing, n, FormatDuration(res.Recovery)))
	for _, id := range ids {
		if err := rig.answerText(ctx, id); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		unedited, _ := rig.progress(msgs, nil)
		if unedited == 0 || time.Now().After(deadline) {
			res.CopiesUnedited = unedited
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	rig.b.Close()
	res.Asked = n
	if err := checkStore(ctx, rig.st, ids, res); err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%d copies missing, %d posted twice, last copy %s after the return (limit %s)",
		missing, twice, FormatDuration(res.Recovery), FormatDuration(postOutageWithin)))
	res.decide()
	res.OK = res.OK && missing == 0 && twice == 0 && res.Recovery <= postOutageWithin
	return res, nil
}

// posted returns the questions with a Telegram copy.
func posted(msgs map[string]int) []string {
	var out []string
	for id, m := range msgs {
		if m != 0 {
			out = append(out, id)
		}
	}
	return out
}
