package redis

import (
	"math"
	"strconv"
	"strings"
)

// A task's value keeps its five times (next attempt, deadline, claim,
// created, updated: milliseconds) in base 62, seven characters each until
// the year 2081, instead of thirteen decimal digits. That keeps a queued
// or claimed task's value, and a finished one's with a chat's message id,
// within Redis's default hash-max-listpack-value (64 bytes), so that the
// record holding it stays a compact listpack: about 0.8 KiB less per
// pending question with a chat copy (docs/benchmarks.md, "Redis memory
// per pending question").
//
// Values written before kept the times in decimal; they are read as they
// are, and written back in base 62 by the next change of the task. The
// two are told apart by the created time: thirteen decimal digits for any
// time after 2001 against at most eight characters in base 62 for
// thousands of years. The state keeps its word, first, so that an older
// bridge sharing the store during an upgrade fails on a newer task's
// times, with nothing written, instead of taking it for a finished one.

// taskTimes are the positions of the times in a task's value.
var taskTimes = [...]int{tfNext, tfDeadline, tfClaim, tfCreated, tfUpdated}

// decimalTimes reports whether a task's created time, and so all of its
// times, is in the decimal form of older values.
func decimalTimes(created string) bool { return len(created) >= 12 }

const b62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// appendB62 appends n in base 62 (digits, then upper, then lower case
// letters), with a minus sign when negative.
func appendB62(b []byte, n int64) []byte {
	if n == 0 {
		return append(b, '0')
	}
	u := uint64(n)
	if n < 0 {
		b = append(b, '-')
		u = uint64(-n)
	}
	var buf [11]byte
	i := len(buf)
	for u > 0 {
		i--
		buf[i] = b62Digits[u%62]
		u /= 62
	}
	return append(b, buf[i:]...)
}

// parseB62 reads a number appendB62 wrote.
func parseB62(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 11 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'A' && c <= 'Z':
			d = c - 'A' + 10
		case c >= 'a' && c <= 'z':
			d = c - 'a' + 36
		default:
			return 0, false
		}
		if n > (math.MaxInt64-int64(d))/62 {
			return 0, false // out of range
		}
		n = n*62 + int64(d)
	}
	if neg {
		n = -n
	}
	return n, true
}

// taskTime reads the time at position i of a task's split value, in the
// form its created time says.
func taskTime(v []string, i int) (int64, bool) {
	if decimalTimes(v[tfCreated]) {
		n, err := strconv.ParseInt(v[i], 10, 64)
		return n, err == nil
	}
	return parseB62(v[i])
}

// newTaskValue is the value of a task just queued at now (milliseconds)
// with its deadline, as outboxLua's renewed writes it.
func newTaskValue(now, deadline int64) string {
	b := make([]byte, 0, 48)
	b = append(b, "queued\t0\t"...)
	b = appendB62(b, now)
	b = append(b, '\t')
	b = appendB62(b, deadline)
	b = append(b, "\t1\t0\t"...)
	b = appendB62(b, now)
	b = append(b, '\t')
	b = appendB62(b, now)
	b = append(b, "\t\t"...)
	return string(b)
}

// taskValueLua defines tsplit and tjoin, which read and write a task's
// value: tsplit returns its fields with the times as decimal strings,
// whichever form they were stored in, and tjoin writes times in base 62,
// and the error class (field 11) only when there is one.
// Lua's numbers hold milliseconds exactly.
const taskValueLua = `
local B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
local TTIMES = {3, 4, 6, 7, 8}
local function e62(n)
  n = tonumber(n)
  if n == 0 then return '0' end
  local sign, s = '', ''
  if n < 0 then sign, n = '-', -n end
  while n > 0 do
    local d = n % 62
    s = string.sub(B62, d + 1, d + 1) .. s
    n = (n - d) / 62
  end
  return sign .. s
end
local function d62(s)
  local n, sign, from = 0, 1, 1
  if string.sub(s, 1, 1) == '-' then sign, from = -1, 2 end
  for i = from, #s do
    local c = string.byte(s, i)
    if c >= 97 then c = c - 61 elseif c >= 65 then c = c - 55 else c = c - 48 end
    n = n * 62 + c
  end
  return string.format('%d', sign * n)
end
local function tsplit(s)
  local t = {}
  for f in string.gmatch(s .. '\t', '([^\t]*)\t') do t[#t + 1] = f end
  if t[7] and #t[7] < 12 then
    for _, i in ipairs(TTIMES) do t[i] = d62(t[i]) end
  end
  return t
end
local function tjoin(t)
  local o, n = {}, 10
  for i = 1, 10 do o[i] = t[i] end
  for _, i in ipairs(TTIMES) do o[i] = e62(t[i]) end
  if t[11] and t[11] ~= '' then o[11], n = t[11], 11 end
  return table.concat(o, '\t', 1, n)
end
`
