package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/askbridge/askbridge/internal/backoff"
)

// agentAPI is a small HTTP client of the bridge's v1 API, tuned for many
// concurrent keep-alive connections. With retry set, a request that fails
// for lack of a server (connection refused or reset, 502–503) is sent
// again until its context ends, the way a client rides out a restart.
type agentAPI struct {
	// http sends the requests, unless raw is set (rawhttp.go).
	http     *http.Client
	raw      *rawClient
	retry    bool
	callback string
}

// The pauses between retries of a request start at retryDelay and double
// up to maxRetryDelay: short, so that a run measures the restart and not
// the pauses.
const (
	retryDelay    = 20 * time.Millisecond
	maxRetryDelay = 500 * time.Millisecond
)

func newAgentAPI(conns int, retry bool) *agentAPI {
	tr := &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
		DisableCompression: true, ResponseHeaderTimeout: 0,
	}
	return &agentAPI{http: &http.Client{Transport: tr}, retry: retry}
}

// newRawAgentAPI is newAgentAPI on rawClient: the load runs' agents.
func newRawAgentAPI(conns int, retry bool) *agentAPI {
	return &agentAPI{raw: newRawClient(conns), retry: retry}
}

func (a *agentAPI) close() {
	if a.raw != nil {
		a.raw.close()
		return
	}
	a.http.CloseIdleConnections()
}

// result is the part of the API's question JSON the runs check.
type result struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Answers map[string]struct {
		Selected []string `json:"selected"`
	} `json:"answers"`
	Fallback string `json:"fallback"`
}

type commandResult struct {
	OK       bool    `json:"ok"`
	Reply    string  `json:"reply"`
	Question *result `json:"question"`
}

// do sends one request and decodes the JSON answer into out, returning
// the status code.
func (a *agentAPI) do(ctx context.Context, method, url string, body any, out any) (int, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return 0, err
		}
	}
	pauses := backoff.New(retryDelay, maxRetryDelay)
	for {
		code, err := a.once(ctx, method, url, raw, out)
		if !a.retry || (err == nil && code != http.StatusBadGateway && code != http.StatusServiceUnavailable) || ctx.Err() != nil {
			return code, err
		}
		if pauses.Wait(ctx) != nil {
			return code, err
		}
	}
}

func (a *agentAPI) once(ctx context.Context, method, url string, raw []byte, out any) (int, error) {
	if a.raw != nil {
		code, b, err := a.raw.do(ctx, method, url, raw)
		if err != nil {
			return code, err
		}
		return decodeAnswer(method, url, code, b, out)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	return decodeAnswer(method, url, resp.StatusCode, b, out)
}

// decodeAnswer decodes the JSON body b of a response with status code
// into out; a 5xx other than 502 and 503 (which a retry rides out) is an
// error that quotes the body.
func decodeAnswer(method, url string, code int, b []byte, out any) (int, error) {
	if code >= 500 && code != http.StatusBadGateway && code != http.StatusServiceUnavailable {
		// Say what the server said: "status 500" alone leaves nothing
		// to look for in its log.
		return code, fmt.Errorf("%w: %s %s: status %d: %s", errUnexpected, method, url, code, bytes.TrimSpace(b))
	}
	if out != nil && len(b) > 0 && code < 500 {
		if err := json.Unmarshal(b, out); err != nil {
			return code, fmt.Errorf("%s %s: %d %q: %w", method, url, code, b, err)
		}
	}
	return code, nil
}

// askRequest is the body of the runs' asks. A struct rather than a map:
// encoding/json sorts a map's keys on every Marshal.
type askRequest struct {
	SessionID   string      `json:"session_id"`
	ToolCallID  string      `json:"tool_call_id"`
	Question    string      `json:"question"`
	Header      string      `json:"header"`
	Options     []askOption `json:"options"`
	Wait        string      `json:"wait"`
	Route       string      `json:"route,omitempty"`
	CallbackURL string      `json:"callback_url,omitempty"`
}

type askOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// askOptions are the four options of every ask.
var askOptions = []askOption{
	{Label: "Postgres", Description: "relational, needs a server"},
	{Label: "SQLite", Description: "embedded, one file"},
	{Label: "MySQL", Description: "relational, needs a server"},
	{Label: "Redis", Description: "in memory, persistence optional"},
}

// askBody is a 4-option question of agent session s, call c.
func askBody(session, call, wait, callbackURL string) *askRequest {
	return &askRequest{
		SessionID: session, ToolCallID: call,
		Question: "Which database should the service use?",
		Header:   "Database",
		Options:  askOptions,
		Wait:     wait, CallbackURL: callbackURL,
	}
}

// chosen is the option the simulated responders pick, and its label.
const (
	chosen      = 2
	chosenLabel = "SQLite"
)

// errUnexpected marks an answer that is not what the run expected.
var errUnexpected = errors.New("unexpected answer")

// ask posts a question; it returns the question's id and status.
func (a *agentAPI) ask(ctx context.Context, server, session, call, wait string) (result, error) {
	var r result
	code, err := a.do(ctx, http.MethodPost, server+"/v1/questions", askBody(session, call, wait, a.callback), &r)
	if err != nil {
		return r, fmt.Errorf("ask: %w", err)
	}
	if code != http.StatusOK && code != http.StatusAccepted {
		return r, fmt.Errorf("ask: %w: status %d", errUnexpected, code)
	}
	return r, nil
}

// answer sends "/answer id 2" through the text channel. A retried answer
// that finds the question already answered the same way counts as done.
func (a *agentAPI) answer(ctx context.Context, server, id, user string) error {
	var r commandResult
	body := struct {
		Channel string `json:"channel"`
		User    string `json:"user"`
		Text    string `json:"text"`
	}{"cli", user, "/answer " + id + " " + strconv.Itoa(chosen)}
	code, err := a.do(ctx, http.MethodPost, server+"/v1/commands", body, &r)
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	switch {
	case code == http.StatusOK && r.OK:
		return nil
	case a.retry && code == http.StatusConflict && r.Question != nil && r.Question.answered():
		return nil
	}
	return fmt.Errorf("answer %s: %w: status %d, %q", id, errUnexpected, code, r.Reply)
}

// wait long-polls a question until it is no longer pending.
func (a *agentAPI) wait(ctx context.Context, server, id string) (result, error) {
	for {
		var r result
		code, err := a.do(ctx, http.MethodGet, server+"/v1/questions/"+id+"?wait=30s", nil, &r)
		if err != nil {
			return r, fmt.Errorf("wait: %w", err)
		}
		if code != http.StatusOK {
			return r, fmt.Errorf("wait %s: %w: status %d", id, errUnexpected, code)
		}
		if r.Status != "pending" {
			return r, nil
		}
	}
}

// answered reports whether r is answered with the responders' choice.
func (r *result) answered() bool {
	if r.Status != "answered" {
		return false
	}
	for _, a := range r.Answers {
		return len(a.Selected) == 1 && a.Selected[0] == chosenLabel
	}
	return false
}
