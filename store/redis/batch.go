package redis

import (
	"context"
	"slices"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// batcher sends the scripts of concurrent callers to Redis together: while
// limit commands are in flight, the commands that arrive wait in a queue,
// and when one in flight returns, the first waiting caller sends the whole
// queue as one pipeline (one write and one read on one connection) for
// everyone in it, and each caller gets its own command's reply. A caller
// alone sends its command at once, as the client would, so a quiet bridge
// waits for nothing.
//
// Under load this is where a question's CPU went: a round trip through
// go-redis costs a connection check, two deadlines and a write and a read
// system call whatever the command, so scripts that share a pipeline
// share that cost (docs/benchmarks.md, "Redis: the scripts of concurrent
// requests sent together").
//
// Only commands that are sent at most once (Cmder.NoRetry: the scripts
// that write) are batched. A pipeline that holds one of them is never
// sent again after a failure, so a command that go-redis may retry (reads
// and idempotent scripts) goes to the client on its own and keeps its
// retry. Every command still reaches Redis as itself, so each script
// stays one atomic step; a pipeline only saves the round trips between
// them, and on a Cluster go-redis splits it by node.
type batcher struct {
	c goredis.UniversalClient
	// limit is how many sends may be in flight at once.
	limit int

	mu     sync.Mutex
	flying int
	queue  []*batchCall
}

// maxBatch bounds a pipeline: the rest of a longer queue goes in the next.
const maxBatch = 128

// batchCall is one waiting caller's command.
type batchCall struct {
	cmd goredis.Cmder
	// turn receives the batch the caller is to send (it is the batch's
	// first), or nil once another caller has sent it and cmd holds the
	// reply.
	turn chan []*batchCall
}

var batchCalls = sync.Pool{New: func() any { return &batchCall{turn: make(chan []*batchCall, 1)} }}

func newBatcher(c goredis.UniversalClient, limit int) *batcher {
	return &batcher{c: c, limit: max(limit, 1)}
}

// Process sends cmd, alone or in a pipeline with other callers' commands,
// and returns its error once its reply is in.
func (b *batcher) Process(ctx context.Context, cmd goredis.Cmder) error {
	if !cmd.NoRetry() {
		return b.c.Process(ctx, cmd)
	}
	b.mu.Lock()
	if b.flying < b.limit {
		b.flying++
		b.mu.Unlock()
		err := b.c.Process(ctx, cmd)
		b.done()
		return err
	}
	call := batchCalls.Get().(*batchCall)
	call.cmd = cmd
	b.queue = append(b.queue, call)
	b.mu.Unlock()

	var batch []*batchCall
	select {
	case batch = <-call.turn:
	case <-ctx.Done():
		b.mu.Lock()
		if i := slices.Index(b.queue, call); i >= 0 {
			b.queue = slices.Delete(b.queue, i, i+1)
			b.mu.Unlock()
			call.cmd = nil
			batchCalls.Put(call)
			cmd.SetErr(ctx.Err())
			return ctx.Err()
		}
		b.mu.Unlock()
		// Already taken into a batch, which will send the command:
		// wait for its reply, as a caller of the client would.
		batch = <-call.turn
	}
	if batch != nil {
		b.send(ctx, batch)
		b.done()
	}
	call.cmd = nil
	batchCalls.Put(call)
	return cmd.Err()
}

// done ends a send: the slot it held passes to the first waiting caller,
// with the queue (up to maxBatch) as its batch.
func (b *batcher) done() {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.flying--
		b.mu.Unlock()
		return
	}
	n := min(len(b.queue), maxBatch)
	batch := slices.Clone(b.queue[:n])
	b.queue = slices.Delete(b.queue, 0, n)
	b.mu.Unlock()
	batch[0].turn <- batch
}

// send sends batch's commands and wakes every caller in it but the first,
// who is sending it. The commands run on their own whether or not the
// sender's caller still waits: they are sent without its cancellation.
func (b *batcher) send(ctx context.Context, batch []*batchCall) {
	ctx = context.WithoutCancel(ctx)
	if len(batch) == 1 {
		_ = b.c.Process(ctx, batch[0].cmd)
		return
	}
	p := b.c.Pipeline()
	for _, call := range batch {
		_ = p.Process(ctx, call.cmd)
	}
	_, _ = p.Exec(ctx)
	for _, call := range batch[1:] {
		call.turn <- nil
	}
}

// scriptsInFlight is how many script sends a store keeps in flight before
// the next callers' scripts wait to go together.
const scriptsInFlight = 2
