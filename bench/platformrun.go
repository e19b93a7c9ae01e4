package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// RunPlatformFault runs platform-cut or platform-429 in-process: a broker
// on SQLite with the Telegram channel against the fake Bot API.
//
// platform-cut: questions are posted; the link to the platform is cut
// for cfg.Down; during the cut half of them are answered through the text
// channel (their Telegram copies must be edited once the link is back),
// the other half are tapped in Telegram (the taps reach the bot after the
// cut), and new questions are asked (posted to the text channel only,
// answered after the cut).
//
// platform-429: the fake answers sends, edits and button answers with
// 429 retry_after 1 many times over; every question is asked and tapped.
//
// Both check that every question was answered exactly once, every posted
// Telegram copy was edited to show the outcome, and every tap answered.
func RunPlatformFault(ctx context.Context, cfg FaultConfig, log func(string)) (*FaultResult, error) {
	n := max(cfg.Agents, 2)
	rig, err := startPlatformRig(ctx)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	res := &FaultResult{Name: cfg.Name}
	var floodEnd time.Time
	if cfg.Name == FaultPlatform429 {
		// A few single 429s in the fake itself, then a flood from the proxy.
		for _, m := range []string{"sendMessage", "editMessageText", "answerCallbackQuery", "getUpdates"} {
			rig.fake.FailNext(m, telegramfake.TooManyRequests(1))
		}
		rig.proxy.Flood(true)
		floodEnd = time.Now().Add(cfg.Down)
		stopFlood := time.AfterFunc(cfg.Down, func() { rig.proxy.Flood(false); log("flood over") })
		defer stopFlood.Stop()
		log(fmt.Sprintf("every Bot API call answered 429 (retry_after 2) for %s", cfg.Down))
	}
	ids, err := rig.askAll(ctx, n)
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d questions posted", n))
	msgs := make(map[string]int, n)
	copiesBy := time.Now()
	if cfg.Name == FaultPlatform429 {
		// The outbox posts what the flood refused once its retry_after
		// has passed: wait, bounded, for the copies.
		copiesBy = floodEnd.Add(15 * time.Second)
	}
	for _, id := range ids {
		for msgs[id] = rig.telegramCopy(ctx, id); msgs[id] == 0 && time.Now().Before(copiesBy); msgs[id] = rig.telegramCopy(ctx, id) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	var taps []string
	var byText []string // questions of posted copies answered through the text channel
	notPosted := 0
	tapOrText := func(id string) error {
		if msgs[id] == 0 {
			notPosted++
			return rig.answerText(ctx, id)
		}
		tap, err := rig.tap(msgs[id])
		if err == nil {
			taps = append(taps, tap)
		}
		return err
	}
	t0 := time.Now()
	switch cfg.Name {
	case FaultPlatformCut:
		rig.proxy.Set(true)
		log(fmt.Sprintf("platform cut for %s", cfg.Down))
		cutEnd := time.Now().Add(cfg.Down)
		for i, id := range ids {
			if i%2 == 0 {
				if err := rig.answerText(ctx, id); err != nil {
					return nil, err
				}
				byText = append(byText, id)
				continue
			}
			if err := tapOrText(id); err != nil {
				return nil, err
			}
		}
		// New questions during the cut: posted to the text channel only.
		more := make([]string, n/2)
		var wg sync.WaitGroup
		errs := make(chan error, len(more))
		for i := range more {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q, err := rig.ask(ctx, n+i)
				if err != nil {
					errs <- err
					return
				}
				more[i] = q.ID
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return nil, err
		}
		log(fmt.Sprintf("during the cut: %d answered by text, %d tapped, %d new questions asked", (n+1)/2, n/2, len(more)))
		time.Sleep(time.Until(cutEnd))
		rig.proxy.Set(false)
		log("platform back")
		for _, id := range more {
			if err := rig.answerText(ctx, id); err != nil {
				return nil, err
			}
		}
		ids = append(ids, more...)
	case FaultPlatform429:
		for _, id := range ids {
			if err := tapOrText(id); err != nil {
				return nil, err
			}
		}
		time.Sleep(time.Until(floodEnd))
	default:
		return nil, fmt.Errorf("fault: %q is not a platform fault", cfg.Name)
	}
	// Wait, bounded, for every copy to be edited and every tap answered.
	deadline := time.Now().Add(30 * time.Second)
	for {
		unedited, unanswered := rig.progress(msgs, taps)
		if unedited == 0 && unanswered == 0 || time.Now().After(deadline) {
			res.CopiesUnedited = unedited
			res.CallbacksMissing = unanswered
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	res.Recovery = time.Since(t0)
	if res.CopiesUnedited > 0 {
		n := 0
		for _, id := range byText {
			if msgs[id] != 0 && !rig.edited(msgs[id]) {
				n++
			}
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%d of the unedited copies belong to questions answered by text during the cut", n))
	}
	rig.b.Close()
	res.Asked = len(ids)
	if err := checkStore(ctx, rig.st, ids, res); err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%d Telegram copies, %d taps answered; callbacks here are button answers", len(msgs)-notPosted, len(taps)))
	if notPosted > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d questions not posted to Telegram (the channel gave up), answered by text", notPosted))
	}
	res.decide()
	return res, nil
}

// progress counts the copies not yet edited and the taps not answered.
func (r *platformRig) progress(msgs map[string]int, taps []string) (unedited, unanswered int) {
	for _, m := range msgs {
		if m != 0 && !r.edited(m) {
			unedited++
		}
	}
	for _, t := range taps {
		if !r.fake.Callback(t).Answered {
			unanswered++
		}
	}
	return unedited, unanswered
}
