package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/backoff"
)

// DefaultServer is the address of a bridge on this machine.
const DefaultServer = "http://127.0.0.1:8377"

// pollWait is how long one long-poll blocks on the server.
const pollWait = 25 * time.Second

// Client talks to one askbridge server. It is safe for concurrent use.
type Client struct {
	base string
	key  string
	// baseErr says why base is not a bridge's address, when it is not.
	baseErr error
	http    *http.Client
	// RetryDelay is the first step of the pauses before re-attaching
	// after a lost connection: each pause is drawn from the upper half
	// of a step that doubles up to 5 s.
	RetryDelay time.Duration
	// ConnectTimeout bounds how long a blocking call (AskRaw, Ask,
	// AskAsync, Wait, Events) keeps trying to reach a server that has not
	// answered it yet; then the call returns an *UnreachableError. Zero
	// keeps trying until ctx ends. Once the server has answered, a lost
	// connection is re-attached until ctx ends, whatever ConnectTimeout.
	ConnectTimeout time.Duration
	// OnRetry, when set, is told of every retry of a blocking call before
	// its pause, so that a program can say it is waiting for the server.
	OnRetry func(RetryInfo)
	// OnExtended, when set, is told each time a blocking wait (AskRaw,
	// Ask, Wait) learns that someone snoozed the question: the question
	// as it then stands, still pending, with its new ExpiresAt. The wait
	// goes on either way: it ends when the question does, not at a
	// deadline it once saw.
	OnExtended func(Result)
	// OnWarnings, when set, is told once when a blocking ask (AskRaw,
	// Ask) learns that its question was warned of ("nobody is watching
	// the web inbox; …"): as soon as the bridge has asked it, before the
	// submit's wait (Question.Wait) ends, with the question's ID, status
	// pending and its Warnings; from the submit's answer when the server
	// sent no early word. The ask goes on; its Result carries the same
	// warnings when it ends. It may be called on the HTTP transport's
	// goroutine.
	OnWarnings func(Result)
	// SessionID names the session of every ask that names none; New sets
	// a random one ("sdk-…"), one per Client. A bridge requires each ask
	// of an agent with a key to name its session and its call.
	SessionID string
}

// Server returns the base URL of the server.
func (c *Client) Server() string { return c.base }

// New returns a client for the server at baseURL ("" means
// DefaultServer), authenticating with key ("" sends none).
func New(baseURL, key string) *Client {
	if baseURL == "" {
		baseURL = DefaultServer
	}
	base := strings.TrimRight(baseURL, "/")
	return &Client{
		base: base, key: key, baseErr: checkBase(base),
		http:       &http.Client{Timeout: pollWait + 30*time.Second},
		RetryDelay: 200 * time.Millisecond,
		SessionID:  newSessionID(),
	}
}

// newSessionID returns a random session id for a Client.
func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "sdk-" + hex.EncodeToString(b[:])
}

// APIError is an error answer of the server.
type APIError struct {
	StatusCode int
	Code       string `json:"code"`
	Message    string `json:"message"`
	Field      string `json:"field,omitempty"`
	// State is the question's current status on 409 answers.
	State Status `json:"status,omitempty"`
	// NotBridge is an answer that is not the bridge's JSON: another
	// server (a web page, a proxy's error page) answered at the address.
	// Message says so in words rather than quoting the page.
	NotBridge bool `json:"-"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("askbridge: %s (HTTP %d)", e.Message, e.StatusCode)
}

// Transient reports whether err is worth retrying: a lost connection, or
// a server that is restarting or overloaded.
func Transient(err error) bool {
	var ae *APIError
	var addr *AddressError
	if errors.As(err, &addr) {
		return false
	}
	if errors.As(err, &ae) {
		return ae.StatusCode == http.StatusServiceUnavailable || ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode == http.StatusBadGateway || ae.StatusCode == http.StatusGatewayTimeout
	}
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// do sends one request and decodes a 2xx answer into out; other answers
// become *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) (int, error) {
	if c.baseErr != nil {
		return 0, c.baseErr
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, fmt.Errorf("askbridge: encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, fmt.Errorf("askbridge: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("askbridge: %s %s: %w", method, path, ctx.Err())
		}
		return 0, &ConnError{Server: c.base, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("askbridge: read answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		var eb struct {
			Error APIError `json:"error"`
		}
		if json.Unmarshal(data, &eb) != nil || eb.Error.Message == "" {
			eb.Error.Message = strings.TrimSpace(string(data))
			if notJSON(resp.Header.Get("Content-Type"), data) {
				eb.Error = APIError{NotBridge: true, Message: c.notBridge(resp)}
			}
		}
		eb.Error.StatusCode = resp.StatusCode
		if out != nil && resp.StatusCode < 500 && eb.Error.Code == "" && !eb.Error.NotBridge {
			_ = json.Unmarshal(data, out)
		}
		return resp.StatusCode, &eb.Error
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			if notJSON(resp.Header.Get("Content-Type"), data) {
				return resp.StatusCode, &APIError{StatusCode: resp.StatusCode, NotBridge: true, Message: c.notBridge(resp)}
			}
			return resp.StatusCode, fmt.Errorf("askbridge: decode answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}

// NewToolCallID returns a random id that names one ask, so that asking
// again after a lost connection re-attaches to the same question.
func NewToolCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// Submit sends q once and returns the result when it resolved within
// q.Wait, or a pending Result (Status pending, with ID and ExpiresAt).
// A q without a session is asked in c.SessionID; one without a tool-call
// id gets a new one, so sending it again asks again: give q an id of its
// own (NewToolCallID) to send it again safely.
func (c *Client) Submit(ctx context.Context, q Question) (*Result, error) {
	if q.SessionID == "" {
		q.SessionID = c.SessionID
	}
	if q.ToolCallID == "" {
		q.ToolCallID = NewToolCallID()
	}
	var res Result
	if _, err := c.do(ctx, http.MethodPost, "/v1/questions", q, &res); err != nil {
		return nil, err
	}
	if res.Status == "" {
		res.Status = StatusPending
	}
	return &res, nil
}

// Get returns the question; with wait > 0 the server holds the call while
// the question is pending, up to wait.
func (c *Client) Get(ctx context.Context, id string, wait time.Duration) (*Result, error) {
	path := "/v1/questions/" + url.PathEscape(id)
	if wait > 0 {
		path += "?wait=" + wait.String()
	}
	var res Result
	if _, err := c.do(ctx, http.MethodGet, path, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Wait blocks until the question resolves or ctx ends, with long-polls
// that survive lost connections and server restarts.
func (c *Client) Wait(ctx context.Context, id string) (*Result, error) {
	r := c.newRetrier()
	ctx = r.trace(ctx)
	// A first read without waiting learns how often the question was
	// snoozed, so that a snooze ending the first long-poll is told.
	for {
		res, err := c.Get(ctx, id, 0)
		if err == nil && res.Terminal() {
			return res, nil
		}
		if err == nil {
			r.ok()
			return c.wait(ctx, id, r, res.Snoozes)
		}
		if err := r.pause(ctx, err); err != nil {
			return nil, err
		}
	}
}

// wait long-polls question id, known to have been snoozed snoozes times,
// until it ends.
func (c *Client) wait(ctx context.Context, id string, r *retrier, snoozes int) (*Result, error) {
	for {
		start := time.Now()
		res, err := c.Get(ctx, id, pollWait)
		switch {
		case err == nil && res.Terminal():
			return res, nil
		case err == nil && c.extended(&snoozes, res):
			// A snooze ended the long-poll early: re-attach at once.
			r.ok()
			continue
		case err == nil && time.Since(start) < time.Second:
			// The server let go early (it is shutting down): pause
			// before re-attaching rather than polling it in a loop.
			r.ok()
			if err := backoff.Sleep(ctx, c.RetryDelay); err != nil {
				return nil, err
			}
			continue
		case err == nil:
			r.ok()
			continue
		}
		if err := r.pause(ctx, err); err != nil {
			return nil, err
		}
	}
}

// extended reports whether pending result res shows more snoozes than
// *known, the count seen before, so that its deadline moved; it tells
// OnExtended so, and keeps the new count in *known.
func (c *Client) extended(known *int, res *Result) bool {
	moved := res.Snoozes > *known
	*known = res.Snoozes
	if moved && c.OnExtended != nil {
		c.OnExtended(*res)
	}
	return moved
}

// AskRaw asks q and blocks until it resolves, whatever the outcome,
// re-attaching after lost connections; a Result with a status other than
// answered is not an error here.
func (c *Client) AskRaw(ctx context.Context, q Question) (*Result, error) {
	if q.ToolCallID == "" {
		q.ToolCallID = NewToolCallID()
	}
	if q.Wait == "" {
		q.Wait = pollWait.String()
	}
	r := c.newRetrier()
	ctx = r.trace(ctx)
	sctx, told := c.earlyWarnings(ctx)
	for {
		res, err := c.Submit(sctx, q)
		if err == nil {
			if res.Terminal() {
				return res, nil
			}
			r.ok()
			// The question had no snooze when asked: one the submit
			// already shows (it ended the submit's wait) is news.
			snoozes := 0
			c.extended(&snoozes, res)
			if len(res.Warnings) > 0 && c.OnWarnings != nil && !told.Load() {
				c.OnWarnings(*res)
			}
			end, err := c.wait(ctx, res.ID, r, snoozes)
			if end != nil && len(end.Warnings) == 0 {
				end.Warnings = res.Warnings
			}
			return end, err
		}
		if err := r.pause(ctx, err); err != nil {
			return nil, err
		}
	}
}

// List returns the agent's questions, newest first; empty arguments match
// everything.
func (c *Client) List(ctx context.Context, sessionID string, status Status) ([]Result, error) {
	v := url.Values{}
	if sessionID != "" {
		v.Set("session_id", sessionID)
	}
	if status != "" {
		v.Set("status", string(status))
	}
	path := "/v1/questions"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out struct {
		Questions []Result `json:"questions"`
	}
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return out.Questions, nil
}

// Cancel ends a pending question, with a reason shown to people.
func (c *Client) Cancel(ctx context.Context, id, reason string) (*Result, error) {
	var res Result
	if _, err := c.do(ctx, http.MethodPost, "/v1/questions/"+url.PathEscape(id)+"/cancel", map[string]string{"reason": reason}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CancelSession ends every pending question of a session.
func (c *Client) CancelSession(ctx context.Context, sessionID, reason string) ([]Result, error) {
	var out struct {
		Cancelled []Result `json:"cancelled"`
	}
	if _, err := c.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(sessionID)+"/cancel", map[string]string{"reason": reason}, &out); err != nil {
		return nil, err
	}
	return out.Cancelled, nil
}

// Command sends a text command ("/answer k7m2qx 2") as a responder on a
// text channel ("" means the server's default, "cli"). A refused command
// returns the server's reply in the CommandResult together with an
// *APIError.
func (c *Client) Command(ctx context.Context, channel, text string) (*CommandResult, error) {
	var out CommandResult
	_, err := c.do(ctx, http.MethodPost, "/v1/commands", map[string]string{"channel": channel, "text": text}, &out)
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == "" && out.Reply != "" {
		ae.Message = out.Reply
	}
	return &out, err
}
