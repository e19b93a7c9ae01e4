package redis

import (
	"context"
	"crypto/sha1"
	"encoding/hex"

	goredis "github.com/redis/go-redis/v9"
)

// script is a Lua script sent by its SHA (EVALSHA), and with its source
// (EVAL) when the server does not have it (restart, failover).
//
// A script that writes runs on the server as soon as its command arrives.
// When the reply is late (read timeout) or the connection drops before
// it, the client cannot know whether the script ran, so sending it again
// could run it twice: append a posted copy twice, count a file's bytes
// twice, take a second event seq. Such scripts are sent once: their
// commands tell go-redis not to retry them (Cmder.NoRetry), on a single
// server, through Sentinel and on Cluster alike, where redirections
// (MOVED, ASK) and READONLY replies, which mean the script did not run,
// are still followed. The caller gets the error (broker.ErrUnavailable),
// as it would for any outage.
//
// Scripts whose second run changes nothing the first did not (they
// check what they would write, or only drop entries) are made with
// newIdempotentScript and keep the client's retry, as reads do.
type script struct {
	src, hash string
	// rerun is set when sending the script again is harmless.
	rerun bool
}

// newScript returns a script that is sent at most once per call.
func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	return &script{src: src, hash: hex.EncodeToString(sum[:])}
}

// newIdempotentScript returns a script that go-redis may send again after
// a failure, because running it twice is the same as running it once.
func newIdempotentScript(src string) *script {
	sc := newScript(src)
	sc.rerun = true
	return sc
}

// Hash returns the script's SHA1, as EVALSHA names it.
func (sc *script) Hash() string { return sc.hash }

// Load loads the script into the script cache (of every master of a
// cluster).
func (sc *script) Load(ctx context.Context, c goredis.Scripter) *goredis.StringCmd {
	return c.ScriptLoad(ctx, sc.src)
}

// processor sends one command: a client or a pipeline.
type processor interface {
	Process(ctx context.Context, cmd goredis.Cmder) error
}

// Run sends the script by its SHA, then with its source if the server
// answered NOSCRIPT (which it does without running anything).
func (sc *script) Run(ctx context.Context, c processor, keys []string, args ...any) *goredis.Cmd {
	cmd := sc.send(ctx, c, "evalsha", keys, args)
	// HasErrorPrefix allocates even for no error: ask it only of one.
	if err := cmd.Err(); err != nil && goredis.HasErrorPrefix(err, "NOSCRIPT") {
		cmd = sc.send(ctx, c, "eval", keys, args)
	}
	return cmd
}

// send processes the script's EVALSHA or EVAL command on c; on a pipeline
// the command is only queued.
func (sc *script) send(ctx context.Context, c processor, name string, keys []string, args []any) *goredis.Cmd {
	body := sc.hash
	if name == "eval" {
		body = sc.src
	}
	a := make([]any, 0, 3+len(keys)+len(args))
	a = append(a, name, body, len(keys))
	for _, k := range keys {
		a = append(a, k)
	}
	a = append(a, args...)
	cmd := goredis.NewCmd(ctx, a...)
	if sc.rerun {
		_ = c.Process(ctx, cmd)
	} else {
		_ = c.Process(ctx, sentOnce{cmd})
	}
	return cmd
}

// sentOnce is a command that go-redis must not send a second time after
// it may have reached the server.
type sentOnce struct{ *goredis.Cmd }

// NoRetry implements goredis.Cmder.
func (sentOnce) NoRetry() bool { return true }
