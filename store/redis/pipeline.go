package redis

import (
	"context"

	goredis "github.com/redis/go-redis/v9"
)

// batch is a pipeline that may carry scripts by their SHA. A server that
// lost its script cache (restart, failover) answers NOSCRIPT without
// running anything; exec then runs those scripts again with their source.
// A pipeline that holds a script sent once (script.go) is not retried by
// go-redis as a whole either.
type batch struct {
	c     goredis.UniversalClient
	pipe  goredis.Pipeliner
	calls []scriptCall
}

type scriptCall struct {
	sc   *script
	keys []string
	args []any
	cmd  *goredis.Cmd
}

func (s *Store) batch() *batch { return &batch{c: s.c, pipe: s.c.Pipeline()} }

// script queues sc; read the returned command after exec.
func (b *batch) script(ctx context.Context, sc *script, keys []string, args ...any) *goredis.Cmd {
	cmd := sc.send(ctx, b.pipe, "evalsha", keys, args)
	b.calls = append(b.calls, scriptCall{sc: sc, keys: keys, args: args, cmd: cmd})
	return cmd
}

// exec sends the pipeline and returns the first error of any command
// (redis.Nil replies are not errors here: callers read them per command).
func (b *batch) exec(ctx context.Context) error {
	cmds, _ := b.pipe.Exec(ctx)
	for _, call := range b.calls {
		if err := call.cmd.Err(); err != nil && goredis.HasErrorPrefix(err, "NOSCRIPT") {
			again := call.sc.send(ctx, b.c, "eval", call.keys, call.args)
			call.cmd.SetVal(again.Val())
			call.cmd.SetErr(again.Err())
		}
	}
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && err != goredis.Nil {
			return err
		}
	}
	return nil
}
