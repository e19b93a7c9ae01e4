#!/bin/sh
# Fault runs: each breaks something under load, stops by itself and prints
# a one-line verdict (PASS or FAIL with the counts). Run from the
# repository root:
#
#   scripts/faults.sh            # all eight runs, about 7–8 minutes
#   scripts/faults.sh kill9      # one run: kill9, redis-restart,
#                                # platform-cut, platform-429, post-outage,
#                                # restart-in-outage, client-hangup or burst
#
# Needs Go and redis-server on PATH. Everything listens on 127.0.0.1 and
# lives in temporary directories that are removed afterwards. The exit
# status is 0 when every run passed.
#
#   kill9          kill -9 the bridge (SQLite) under load, restart it after 1 s
#   redis-restart  kill -9 redis-server (AOF, appendfsync always) under load,
#                  restart it after 1 s
#   platform-cut   cut the fake Telegram Bot API for 30 s while questions are
#                  answered by text, tapped in Telegram and asked
#   platform-429   answer every Bot API call with 429 (retry_after 2) for 4 s
#                  while questions are asked and tapped
#   post-outage    cut the fake Telegram Bot API for 30 s while 200 questions
#                  are asked; every copy must be posted within 10 s of its
#                  return, none twice, and edited once answered
#   restart-in-outage  post 50 questions to the fake Telegram, cut it for
#                  50 s, answer them all by text, kill -9 the bridge and
#                  restart it during the cut; every copy must be edited
#                  once the platform is back
#   client-hangup  200 asks over HTTP whose clients hang up at random within
#                  2.5 s while the fake Telegram and Slack take 2 s a call
#                  (one in ten to a chat that does not exist); every
#                  question must end with all its copies posted, or
#                  unsupported with a reason, and every copy edited
#   burst          500 questions at once to one Slack channel and one
#                  Telegram group whose fakes allow 20 messages a second per
#                  chat (429 with retry_after beyond), the bridge paced to
#                  match; all posted within a minute, none twice, never
#                  more than 20 to a chat in any second
#
# After each: every question answered exactly once, nothing pending lost,
# every callback delivered (kill9, redis-restart), every Telegram copy
# edited and every button tap answered (platform runs).
set -eu

runs=${*:-kill9 redis-restart platform-cut platform-429 post-outage restart-in-outage client-hangup burst}
work=$(mktemp -d "${TMPDIR:-/tmp}/askbridge-faults-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

echo "building bridge and askbench..."
go build -o "$work/bridge" ./cmd/bridge
go build -o "$work/askbench" ./bench/cmd/askbench

failed=0
for run in $runs; do
	case $run in
	kill9 | redis-restart | restart-in-outage) set -- --bridge "$work/bridge" ;;
	platform-cut | platform-429 | post-outage | client-hangup | burst) set -- ;;
	*)
		echo "faults.sh: unknown run $run (kill9, redis-restart, platform-cut, platform-429, post-outage, restart-in-outage, client-hangup, burst)" >&2
		exit 2
		;;
	esac
	# Each run bounds itself; timeout is a second fence.
	if ! timeout 150 "$work/askbench" fault "$run" "$@" 2>"$work/$run.log"; then
		failed=1
		sed 's/^/    /' "$work/$run.log" >&2
	fi
done
exit $failed
