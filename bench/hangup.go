package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/channels/cli"
)

// hangupEvery sends every hangupEvery-th ask to goneRoute, whose one
// target fails for good: those must end unsupported with a reason.
const hangupEvery = 10

// RunClientHangup runs client-hangup in-process: the broker behind the
// HTTP API, Telegram and Slack fakes that take cfg.Down for every message
// call, and cfg.Agents asks whose clients hang up at a random point
// within the first 2.5 s. Each agent then asks again with the same
// session and tool call, as an agent retrying would, to learn its
// question. Every question must end with all its copies posted, or
// (those of goneRoute) resolved unsupported with a reason; once answered,
// every copy must be edited.
func RunClientHangup(ctx context.Context, cfg FaultConfig, log func(string)) (*FaultResult, error) {
	n := max(cfg.Agents, 1)
	rig, err := startPairRig(ctx, pairOptions{delay: cfg.Down, outbox: outbox.Config{Poll: 100 * time.Millisecond,
		BaseBackoff: 200 * time.Millisecond, MaxBackoff: 2 * time.Second}})
	if err != nil {
		return nil, err
	}
	defer rig.close()
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, TextChannels: []string{cli.Name}, Logger: quiet}, rig.b, rig.st))
	defer srv.Close()
	res := &FaultResult{Name: cfg.Name}
	var hungUp atomic.Int64
	t0 := time.Now()
	err = parallel(ctx, 50, n, func(i int) error {
		cut := time.Duration(rand.N(int64(2500 * time.Millisecond)))
		actx, cancel := context.WithTimeout(ctx, cut)
		defer cancel()
		if _, err := askHTTP(actx, srv.URL, i); err != nil && actx.Err() != nil {
			hungUp.Add(1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d asks sent, %d of them hung up (each client within 2.5 s); the platforms take %s a call", n, hungUp.Load(), cfg.Down))
	ids := make([]string, n)
	err = parallel(ctx, 20, n, func(i int) error {
		q, err := askHTTP(ctx, srv.URL, i)
		if err == nil {
			ids[i] = q.ID
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// Wait, bounded, for every copy to be posted or every target to fail.
	var left []string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if left, err = unsettled(ctx, rig.b, ids); err != nil {
			return nil, err
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	res.Recovery = time.Since(t0)
	var open []string
	unsupported, noReason := 0, 0
	for _, id := range ids {
		q, err := rig.st.Get(ctx, id)
		if err != nil {
			continue
		}
		if q.Status == broker.StatusUnsupported {
			unsupported++
			if q.Reason == "" {
				noReason++
			}
			continue
		}
		open = append(open, id)
	}
	log(fmt.Sprintf("%d questions with every copy posted, %d unsupported, %d unsettled, after %s", len(open)-len(left), unsupported, len(left), FormatDuration(res.Recovery)))
	if err := rig.answerAll(ctx, open); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		res.CopiesUnedited = rig.unedited(ctx, open)
		if res.CopiesUnedited == 0 || time.Now().After(deadline) {
			break
		}
	}
	tg, sl := rig.copyCounts(open)
	twice := 0
	for _, id := range open {
		if tg[id] > 1 || sl[id] > 1 {
			twice++
		}
	}
	rig.b.Close()
	res.Asked = len(open)
	if err := checkStore(ctx, rig.st, open, res); err != nil {
		return nil, err
	}
	wantGone := (n + hangupEvery - 1) / hangupEvery
	res.Notes = append(res.Notes, fmt.Sprintf("%d asks, %d clients hung up, %d unsettled, %d unsupported (want %d, %d without a reason), %d posted twice",
		n, hungUp.Load(), len(left), unsupported, wantGone, noReason, twice))
	res.decide()
	res.OK = res.OK && len(left) == 0 && unsupported == wantGone && noReason == 0 && twice == 0
	return res, nil
}

// askHTTP asks question i through the API, without waiting for an answer.
func askHTTP(ctx context.Context, server string, i int) (result, error) {
	body := askBody("hangup", fmt.Sprintf("q%d", i), "0s", "")
	if i%hangupEvery == 0 {
		body.Route = goneRoute
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, server+"/v1/questions", bytes.NewReader(raw))
	if err != nil {
		return result{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	var r result
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return r, fmt.Errorf("ask %d: %w", i, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return r, fmt.Errorf("ask %d: status %d", i, resp.StatusCode)
	}
	return r, nil
}

// unsettled returns the questions of ids that are pending with a copy not
// yet posted.
func unsettled(ctx context.Context, b *broker.Broker, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		cs, err := b.Copies(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if c.State != broker.CopyPosted && c.State != broker.CopyFailed {
				out = append(out, id)
				break
			}
		}
	}
	return out, nil
}
