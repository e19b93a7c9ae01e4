package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Attachments = (*Store)(nil)

// files is the key of a question's files: a hash in the question's shard,
// so that one script checks the question and writes its files. Fields: n
// (the last number given), t (bytes kept), m<n> (file n's name, type and
// size as JSON), d<n> (its bytes). It expires like the question's record:
// while pending, after the longest life a question may have plus the
// retention; once resolved, with the record (resolveScript); Purge deletes
// it with the record.
func (k *keys) files(id string) string { return k.tags[shardOf(id)] + "f:" + id }

// fileMeta is the m<n> field of a file.
type fileMeta struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

// putFileScript stores a file with a pending question, within the
// question's total. KEYS: rec, files. ARGV: 1 meta json, 2 bytes, 3 size,
// 4 max total, 5 ttl ms. Returns {'ok', n}, {'nf'}, {'closed', whole}
// or {'full', total}. It marks the record (field hf), so that Resolve
// knows to expire the files with the record; files stored without the
// mark (by an older version) expire with their own time to live.
var putFileScript = newScript(prelude + `
local f = redis.call('HMGET', KEYS[1], 'st', 'hf')
if not f[1] then return {'nf'} end
if f[1] ~= 'pending' then return {'closed', whole(KEYS[1])} end
local total = tonumber(redis.call('HGET', KEYS[2], 't') or '0')
if total + tonumber(ARGV[3]) > tonumber(ARGV[4]) then return {'full', tostring(total)} end
if not f[2] then redis.call('HSET', KEYS[1], 'hf', '1') end
local n = redis.call('HINCRBY', KEYS[2], 'n', 1)
redis.call('HSET', KEYS[2], 'm' .. n, ARGV[1], 'd' .. n, ARGV[2])
redis.call('HINCRBY', KEYS[2], 't', ARGV[3])
local ttl = tonumber(ARGV[5])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return {'ok', n}
`)

// deleteFilesScript removes files and their bytes from the total; the
// counter n stays. KEYS: files. ARGV: numbers.
var deleteFilesScript = newIdempotentScript(`
for _, n in ipairs(ARGV) do
  local m = redis.call('HGET', KEYS[1], 'm' .. n)
  if m then
    redis.call('HDEL', KEYS[1], 'm' .. n, 'd' .. n)
    redis.call('HINCRBY', KEYS[1], 't', -(tonumber(cjson.decode(m).size) or 0))
  end
end
return 1
`)

// PutAttachment stores f with pending question id under its next number.
func (s *Store) PutAttachment(ctx context.Context, id string, f broker.File, maxTotal int64) (int, error) {
	if !validID(id) {
		return 0, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	f.Size = int64(len(f.Data))
	meta, err := json.Marshal(fileMeta{Name: f.Name, Type: f.Type, Size: f.Size})
	if err != nil {
		return 0, fmt.Errorf("redis store: put attachment: encode: %w", err)
	}
	ttl := maxLifetime + s.cfg.Retention + grace
	v, err := putFileScript.Run(ctx, s.run, []string{s.k.rec(id), s.k.files(id)}, meta, f.Data, f.Size, maxTotal, ttl.Milliseconds()).Slice()
	if err != nil {
		return 0, wrap("put attachment", err)
	}
	code, _ := v[0].(string)
	switch code {
	case "ok":
		n, _ := v[1].(int64)
		return int(n), nil
	case "full":
		return 0, fmt.Errorf("redis store: put attachment %s: the question keeps %v bytes of files, and %d more would pass %d: %w", id, v[1], f.Size, maxTotal, broker.ErrLimit)
	}
	_, err = s.mutationResult(ctx, "put attachment", id, v)
	return 0, err
}

// GetAttachment returns file n of question id.
func (s *Store) GetAttachment(ctx context.Context, id string, n int) (*broker.File, error) {
	if !validID(id) || n < 1 {
		return nil, fmt.Errorf("redis store: attachment %q/%d: %w", id, n, broker.ErrNotFound)
	}
	num := strconv.Itoa(n)
	v, err := s.c.HMGet(ctx, s.k.files(id), "m"+num, "d"+num).Result()
	if err != nil {
		return nil, wrap("get attachment", err)
	}
	meta, _ := v[0].(string)
	data, ok := v[1].(string)
	if meta == "" || !ok {
		return nil, fmt.Errorf("redis store: attachment %s/%d: %w", id, n, broker.ErrNotFound)
	}
	f, err := decodeFileMeta(n, meta)
	if err != nil {
		return nil, err
	}
	f.Data = []byte(data)
	return &f, nil
}

// ListAttachments lists the files of question id without their bytes.
func (s *Store) ListAttachments(ctx context.Context, id string) ([]broker.File, error) {
	if !validID(id) {
		return nil, nil
	}
	last, err := s.c.HGet(ctx, s.k.files(id), "n").Int()
	if errors.Is(err, goredis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("list attachments", err)
	}
	fields := make([]string, last)
	for i := range last {
		fields[i] = "m" + strconv.Itoa(i+1)
	}
	v, err := s.c.HMGet(ctx, s.k.files(id), fields...).Result()
	if err != nil {
		return nil, wrap("list attachments", err)
	}
	var out []broker.File
	for i, x := range v {
		meta, _ := x.(string)
		if meta == "" {
			continue
		}
		f, err := decodeFileMeta(i+1, meta)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// DeleteAttachments removes files ns of question id.
func (s *Store) DeleteAttachments(ctx context.Context, id string, ns []int) error {
	if !validID(id) || len(ns) == 0 {
		return nil
	}
	args := make([]any, len(ns))
	for i, n := range ns {
		args[i] = n
	}
	return wrap("delete attachments", deleteFilesScript.Run(ctx, s.run, []string{s.k.files(id)}, args...).Err())
}

func decodeFileMeta(n int, meta string) (broker.File, error) {
	var m fileMeta
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		return broker.File{}, fmt.Errorf("redis store: attachment %d: decode: %w", n, err)
	}
	return broker.File{N: n, Name: m.Name, Type: m.Type, Size: m.Size}, nil
}
