package callback

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/askbridge/askbridge/broker"
)

// Defaults of Config.
const (
	DefaultBaseBackoff = time.Second
	DefaultMaxBackoff  = time.Hour
	DefaultWindow      = 24 * time.Hour
	DefaultTimeout     = 10 * time.Second
	DefaultPoll        = broker.MaxIdle
	DefaultConcurrency = 8
)

// Config configures a Deliverer. Zero fields take the defaults above.
type Config struct {
	// Secrets maps an agent name to its callback secret; agents not in it
	// use DefaultSecret. A delivery for an agent with no secret fails: the
	// bridge never sends an unsigned callback.
	Secrets       map[string]string
	DefaultSecret string
	// Policy says which URLs may be called and which addresses may be
	// connected to for them (nil: none).
	Policy *Policy

	// BaseBackoff is the pause after the first failed attempt; each
	// further failure doubles the ceiling, up to MaxBackoff, and the
	// pause is drawn at random between BaseBackoff and that ceiling.
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	// Window is how long after the resolution a delivery keeps being
	// retried before it is marked failed.
	Window time.Duration
	// Timeout bounds one attempt (connect, send, read the status).
	Timeout time.Duration
	// Poll is how often the outbox is checked when nothing this instance
	// knows of is due: for deliveries another process enqueued or left
	// behind (its claim ran out). A question with a callback resolved on
	// this instance, and this instance's retries, are sent when due
	// without waiting for it, and so is the earliest delivery the store
	// knows of (broker.Outbox's NextDelivery).
	Poll time.Duration
	// Concurrency is how many attempts run at once on this instance.
	Concurrency int

	// Registerer, when set, registers the delivery counters.
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	Now        func() time.Time

	// resolver and dialHook reach the client's dialer (see
	// newHTTPClient); tests set them.
	resolver *net.Resolver
	dialHook func(network, address string) error
	client   *http.Client
}

// withDefaults fills zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.BaseBackoff == 0 {
		c.BaseBackoff = DefaultBaseBackoff
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = max(DefaultMaxBackoff, c.BaseBackoff)
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Poll == 0 {
		c.Poll = DefaultPoll
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	switch {
	case c.BaseBackoff < 0 || c.MaxBackoff < c.BaseBackoff:
		return c, fmt.Errorf("callback: backoff: base %s must be positive and at most the cap %s", c.BaseBackoff, c.MaxBackoff)
	case c.Window < 0 || c.Timeout < 0 || c.Poll < 0 || c.Concurrency < 0:
		return c, fmt.Errorf("callback: window, timeout, poll and concurrency must be positive")
	}
	if c.Policy == nil {
		c.Policy = &Policy{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	c.client = newHTTPClient(c.Policy, c.resolver, c.dialHook)
	return c, nil
}

// secret returns the callback secret of agent.
func (c Config) secret(agent string) string {
	if s, ok := c.Secrets[agent]; ok && s != "" {
		return s
	}
	return c.DefaultSecret
}
