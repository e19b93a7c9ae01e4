package redis_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// replyHolder is a TCP proxy in front of Redis that passes commands on at
// once. Once armed, the next connection to send a command gets no more
// replies: the command runs, but the client sees its read time out, as
// under a stalled network. Other connections are served as usual.
type replyHolder struct {
	ln     net.Listener
	target string
	arm    atomic.Bool
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

func startReplyHolder(t *testing.T, target string) *replyHolder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &replyHolder{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *replyHolder) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		var held atomic.Bool
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			defer func() { _ = up.Close() }()
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if p.arm.CompareAndSwap(true, false) {
						held.Store(true)
					}
					if _, werr := up.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() {
			defer p.wg.Done()
			defer func() { _ = c.Close() }()
			buf := make([]byte, 32<<10)
			for {
				n, err := up.Read(buf)
				if n > 0 && !held.Load() {
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

func (p *replyHolder) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestWriteScriptsAreSentOnce: when the reply of a script that writes is
// late past the read timeout, the client does not send the script again,
// since it has already run on the server. A second run would store a
// posted copy twice, or count a file's bytes twice (and so refuse the
// next file as over the size limit).
func TestWriteScriptsAreSentOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for read timeouts")
	}
	cfg := redistest.Shared(t)
	p := startReplyHolder(t, cfg.Addrs[0])
	cfg.Addrs = []string{p.ln.Addr().String()}
	s := open(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	cases := []struct {
		name  string
		write func(id string) error
		count func(id string) (int, error)
	}{
		{"AddMessage", func(id string) error {
			return s.AddMessage(ctx, id, broker.MessageRef{Channel: "telegram", Chat: "1", MessageID: "7", PostedAt: now})
		}, func(id string) (int, error) {
			ms, err := s.Messages(ctx, id)
			return len(ms), err
		}},
		{"PutAttachment", func(id string) error {
			_, err := s.PutAttachment(ctx, id, broker.File{Name: "a.txt", Type: "text/plain", Size: 5, Data: []byte("hello")}, 1<<20)
			return err
		}, func(id string) (int, error) {
			fs, err := s.ListAttachments(ctx, id)
			return len(fs), err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A first write loads the script, so that the held one is
			// sent by its SHA and runs.
			warm := brokertest.NewQuestion(broker.NewID(), "a1", now)
			q := brokertest.NewQuestion(broker.NewID(), "a1", now)
			for _, q := range []*broker.Question{warm, q} {
				if _, _, err := s.Create(ctx, q, nil); err != nil {
					t.Fatalf("Create: %v", err)
				}
			}
			if err := tc.write(warm.ID); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			p.arm.Store(true)
			start := time.Now()
			err := tc.write(q.ID)
			p.arm.Store(false)
			t.Logf("%s returned after %v: %v", tc.name, time.Since(start), err)
			// The caller cannot know whether the write was made: it
			// gets an outage, not a second run.
			if !errors.Is(err, broker.ErrUnavailable) {
				t.Errorf("%s with its reply held: %v, want ErrUnavailable", tc.name, err)
			}
			n, err := tc.count(q.ID)
			if err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if n != 1 {
				t.Errorf("after one %s whose reply was lost: %d stored, want 1 (the script ran %d times)", tc.name, n, n)
			}
		})
	}
}
