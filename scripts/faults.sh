#!/bin/sh
# Fault runs: each breaks something under load, stops by itself and prints
# a one-line verdict (PASS or FAIL with the counts). Run from the
# repository root:
#
#   scripts/faults.sh            # all five runs, about 3–4 minutes
#   scripts/faults.sh kill9      # one run: kill9, redis-restart,
#                                # platform-cut, platform-429 or post-outage
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
#
# After each: every question answered exactly once, nothing pending lost,
# every callback delivered (kill9, redis-restart), every Telegram copy
# edited and every button tap answered (platform runs).
set -eu

runs=${*:-kill9 redis-restart platform-cut platform-429 post-outage}
work=$(mktemp -d "${TMPDIR:-/tmp}/askbridge-faults-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

echo "building bridge and askbench..."
go build -o "$work/bridge" ./cmd/bridge
go build -o "$work/askbench" ./bench/cmd/askbench

failed=0
for run in $runs; do
	case $run in
	kill9 | redis-restart) set -- --bridge "$work/bridge" ;;
	platform-cut | platform-429 | post-outage) set -- ;;
	*)
		echo "faults.sh: unknown run $run (kill9, redis-restart, platform-cut, platform-429, post-outage)" >&2
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
