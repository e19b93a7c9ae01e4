package redis

import (
	"context"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// RepairExtendedNow runs the repair of unlogged extended events now,
// whenever it last ran.
func (s *Store) RepairExtendedNow(ctx context.Context) {
	s.extRepair.Store(0)
	s.repairExtended(ctx)
}

// LeaveExtendedMark puts back the mark of snooze n of question id, as a
// crash between the amend script and the logging of its event leaves it;
// with lost, the event is taken out of the log too (the crash came before
// the logging).
func (s *Store) LeaveExtendedMark(ctx context.Context, id, agent string, n int, lost bool) error {
	mark := id + "\t" + strconv.Itoa(n)
	if lost {
		for _, key := range []string{s.k.evAgent(agent)} {
			all, err := s.c.ZRangeWithScores(ctx, key, 0, -1).Result()
			if err != nil {
				return err
			}
			for _, z := range all {
				m := z.Member.(string)
				if strings.Contains(m, `"question_id":"`+id+`"`) && strings.Contains(m, `"snoozes":`+strconv.Itoa(n)+`}`) {
					if err := s.c.ZRem(ctx, key, m).Err(); err != nil {
						return err
					}
				}
			}
		}
		if err := s.c.HDel(ctx, s.k.evIDs(), id+"\tx"+strconv.Itoa(n)).Err(); err != nil {
			return err
		}
	}
	return s.c.ZAdd(ctx, s.k.unextended(shardOf(id)), goredis.Z{Score: float64(usec(time.Now().Add(-time.Hour))), Member: mark}).Err()
}
