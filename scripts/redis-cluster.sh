#!/bin/sh
# Start a local three-master Redis Cluster for development and tests:
#
#   scripts/redis-cluster.sh start [first-port]   # default 17000: 17000-17002
#   scripts/redis-cluster.sh stop  [first-port]
#
# Data and logs go to ${TMPDIR:-/tmp}/askbridge-redis-cluster-<port>. No
# persistence; the nodes listen on 127.0.0.1 only.
set -eu

cmd=${1:-start}
first=${2:-17000}
base=${TMPDIR:-/tmp}/askbridge-redis-cluster-$first
ports="$first $((first + 1)) $((first + 2))"

case $cmd in
start)
	addrs=""
	for p in $ports; do
		mkdir -p "$base/$p"
		redis-server --port "$p" --bind 127.0.0.1 --dir "$base/$p" \
			--cluster-enabled yes --cluster-config-file nodes.conf \
			--cluster-node-timeout 2000 --save "" --appendonly no \
			--daemonize yes --pidfile "$base/$p/redis.pid" --logfile "$base/$p/redis.log"
		addrs="$addrs 127.0.0.1:$p"
	done
	for p in $ports; do
		until redis-cli -p "$p" ping >/dev/null 2>&1; do sleep 0.1; done
	done
	# shellcheck disable=SC2086 # addrs is a list
	redis-cli --cluster create $addrs --cluster-replicas 0 --cluster-yes >/dev/null
	until redis-cli -p "$first" cluster info | grep -q cluster_state:ok; do sleep 0.1; done
	echo "cluster up:$addrs"
	echo "config: store: {driver: redis, redis: {cluster: true, addrs: [127.0.0.1:$first]}}"
	;;
stop)
	for p in $ports; do
		redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
	done
	rm -rf "$base"
	;;
*)
	echo "usage: $0 start|stop [first-port]" >&2
	exit 2
	;;
esac
