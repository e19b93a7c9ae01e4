package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.PushStore = (*Store)(nil)

// The Web Push keys share the hash tag {push}, so that a subscription's
// entry under its person and the index of endpoints change in one script
// on Cluster too.
func (k *keys) vapid() string                { return k.prefix + "{push}:vapid" }
func (k *keys) pushEndpoints() string        { return k.prefix + "{push}:e" }
func (k *keys) pushPerson(who string) string { return k.prefix + "{push}:p:" + who }

// savePushScript stores a subscription under its person and moves it from
// the person who had it, unless the index changed since the caller read
// it (-1: read again), or the person is at the cap (-2). Running it twice
// stores the same.
var savePushScript = newIdempotentScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if cur ~= ARGV[5] then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[4]) then return -2 end
if cur ~= '' and cur ~= ARGV[2] then redis.call('HDEL', KEYS[3], ARGV[1]) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`)

// deletePushScript removes a person's subscription and its index entry
// when the entry is still that person's.
var deletePushScript = newIdempotentScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return redis.call('HDEL', KEYS[2], ARGV[1])`)

// VAPIDKeys returns the stored key pair, storing candidate first with SET
// NX when there is none, so that the first instance's pair is everyone's.
func (s *Store) VAPIDKeys(ctx context.Context, candidate broker.VAPIDKeys) (broker.VAPIDKeys, error) {
	if err := broker.CheckVAPIDKeys(candidate); err != nil {
		return broker.VAPIDKeys{}, fmt.Errorf("redis store: vapid keys: %w", err)
	}
	data, err := json.Marshal(candidate)
	if err != nil {
		return broker.VAPIDKeys{}, fmt.Errorf("redis store: vapid keys: %w", err)
	}
	if err := s.c.SetNX(ctx, s.k.vapid(), data, 0).Err(); err != nil {
		return broker.VAPIDKeys{}, wrap("vapid keys", err)
	}
	v, err := s.c.Get(ctx, s.k.vapid()).Bytes()
	if err != nil {
		return broker.VAPIDKeys{}, wrap("vapid keys", err)
	}
	var k broker.VAPIDKeys
	if err := json.Unmarshal(v, &k); err != nil {
		return broker.VAPIDKeys{}, fmt.Errorf("redis store: vapid keys: %s holds no key pair: %w", s.k.vapid(), err)
	}
	return k, nil
}

// SavePushSubscription stores sub under its person, taking its endpoint
// from whoever had it.
func (s *Store) SavePushSubscription(ctx context.Context, sub broker.PushSubscription) error {
	if err := sub.Check(); err != nil {
		return fmt.Errorf("redis store: save push subscription: %w", err)
	}
	data, err := json.Marshal(sub)
	if err != nil {
		return fmt.Errorf("redis store: save push subscription: %w", err)
	}
	for range 5 {
		old, err := s.c.HGet(ctx, s.k.pushEndpoints(), sub.Endpoint).Result()
		if err != nil && !errors.Is(err, goredis.Nil) {
			return wrap("save push subscription", err)
		}
		from := s.k.pushPerson(sub.Person)
		if old != "" {
			from = s.k.pushPerson(old)
		}
		n, err := savePushScript.Run(ctx, s.c,
			[]string{s.k.pushEndpoints(), s.k.pushPerson(sub.Person), from},
			sub.Endpoint, sub.Person, data, broker.MaxPushSubscriptions, old).Int()
		switch {
		case err != nil:
			return wrap("save push subscription", err)
		case n == -2:
			return fmt.Errorf("redis store: save push subscription: %w: %s has notifications on in %d devices already: remove one first",
				broker.ErrLimit, sub.Person, broker.MaxPushSubscriptions)
		case n == 1:
			return nil
		}
	}
	return fmt.Errorf("redis store: save push subscription: %w: the endpoint kept changing hands", broker.ErrConflict)
}

// PushSubscriptions reads the subscriptions of people in one pipeline.
func (s *Store) PushSubscriptions(ctx context.Context, people []string) ([]broker.PushSubscription, error) {
	people = pushPeople(people)
	if len(people) == 0 {
		return nil, nil
	}
	cmds := make([]*goredis.MapStringStringCmd, len(people))
	_, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, who := range people {
			cmds[i] = p.HGetAll(ctx, s.k.pushPerson(who))
		}
		return nil
	})
	if err != nil {
		return nil, wrap("push subscriptions", err)
	}
	var out []broker.PushSubscription
	for i, who := range people {
		var mine []broker.PushSubscription
		for _, v := range cmds[i].Val() {
			var sub broker.PushSubscription
			if json.Unmarshal([]byte(v), &sub) != nil || sub.Person != who {
				continue // not a subscription this program wrote
			}
			mine = append(mine, sub)
		}
		slices.SortFunc(mine, func(a, b broker.PushSubscription) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return strings.Compare(a.Endpoint, b.Endpoint)
		})
		out = append(out, mine...)
	}
	return out, nil
}

// HasPushSubscription asks EXISTS of the people's keys at once (one slot).
func (s *Store) HasPushSubscription(ctx context.Context, people []string) (bool, error) {
	people = pushPeople(people)
	if len(people) == 0 {
		return false, nil
	}
	ks := make([]string, len(people))
	for i, who := range people {
		ks[i] = s.k.pushPerson(who)
	}
	n, err := s.c.Exists(ctx, ks...).Result()
	if err != nil {
		return false, wrap("has push subscription", err)
	}
	return n > 0, nil
}

// DeletePushSubscription removes person's subscription with endpoint.
func (s *Store) DeletePushSubscription(ctx context.Context, person, endpoint string) (bool, error) {
	if person == "" || endpoint == "" {
		return false, nil
	}
	n, err := deletePushScript.Run(ctx, s.c, []string{s.k.pushEndpoints(), s.k.pushPerson(person)}, endpoint, person).Int()
	if err != nil {
		return false, wrap("delete push subscription", err)
	}
	return n > 0, nil
}

// pushPeople returns the non-empty strings of xs, each once, in order.
func pushPeople(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
