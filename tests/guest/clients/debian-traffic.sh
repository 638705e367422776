#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's real data-path clients on the project's library: the ibverbs
# pingpong programs (RC, UC, UD, SRQ) with the server on rxe0 and the
# client on rxe1, and librdmacm's rping over 198.18.0.1.  Each must
# complete its exchange with the data checked, and server and client alike
# must have run on the project's libibverbs.so.1 (the loader's trace says
# which they loaded).
#
# An exit status of 0 alone proves little: a data path that moved the wrong
# bytes still completes.  So the pingpong programs run with -c (--chk: the
# client writes a known pattern, the server checks every page of what it
# received and prints "invalid data in page N" otherwise, without changing
# its exit status) and rping with -V (each side compares the ping data and
# fails on a mismatch).  Any such line fails the pair.
#
# With CLIENT_ONLY=installed or debian (tests/pkg/in-guest) the pairs run
# on that library instead of the project's.
#
# usage: debian-traffic.sh PATH/TO/PROJECT/libibverbs.so.1
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"

want=${CLIENT_ONLY:-project}
_client_ld_env "$want" || {
	not_ok "no $want library"
	client_finish
}
# GID 1 of each device holds its IPv4 address (tests/vm sets them up).
gid=1

# wait_listen PORT PID: until a TCP socket listens on PORT (at most 60 s)
# or the server PID is gone.  The servers open the device and create their
# QPs before they listen, which under TCG on a loaded host takes from 2 to
# 7 s for ibv_srq_pingpong (16 QPs and an SRQ); a client started before
# that finds nobody to connect to and fails, without retrying.
wait_listen() {
	local i
	for ((i = 0; i < 600; i++)); do
		ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# pair NAME PORT SERVER_CMD... -- CLIENT_CMD...: server in the background,
# the client once it listens on TCP port PORT ("-": an RDMA CM listener,
# which ss cannot see, so a fixed 2 s); both must exit 0 on the library
# under test.
pair() {
	local name=$1 port=$2 srv=() cli=() srv_pid srv_rc=0 cli_rc=0
	shift 2
	while [[ $1 != -- ]]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	rm -rf "$client_tmp/$name".*
	trace_run "$client_tmp/$name.srv.ld" timeout -k 5 120 \
		env "${client_ldenv[@]}" "${srv[@]}" >"$client_tmp/$name.srv.out" 2>&1 &
	srv_pid=$!
	if [[ $port == - ]]; then
		sleep 2
	elif ! wait_listen "$port" "$srv_pid"; then
		echo "    $name: the server did not listen on port $port"
	fi
	trace_run "$client_tmp/$name.cli.ld" timeout -k 5 120 \
		env "${client_ldenv[@]}" "${cli[@]}" >"$client_tmp/$name.cli.out" 2>&1 ||
		cli_rc=$?
	wait "$srv_pid" || srv_rc=$?
	local bad
	bad=$(grep -hiE 'invalid data|miscompare|mismatch' \
		"$client_tmp/$name.srv.out" "$client_tmp/$name.cli.out")
	if [[ -n $bad ]]; then
		not_ok "$name: data check failed: ${bad//$'\n'/; }"
	elif ((srv_rc == 0 && cli_rc == 0)); then
		ok "$name: exchange completed, data checked ($(grep -m1 -E \
			'iters|bytes in' "$client_tmp/$name.cli.out" || echo "done"))"
	else
		not_ok "$name: server exit $srv_rc, client exit $cli_rc"
		sed 's/^/    server: /' "$client_tmp/$name.srv.out"
		sed 's/^/    client: /' "$client_tmp/$name.cli.out"
	fi
	local verdict side
	for side in srv cli; do
		if verdict=$(trace_assert "$client_tmp/$name.$side.ld" "$want" \
			"$name $side"); then
			ok "$verdict"
		else
			not_ok "$verdict"
		fi
	done
}

for kind in rc uc ud srq; do
	prog=/usr/bin/ibv_${kind}_pingpong
	# 18515: the pingpong programs' default port.
	pair "ibv_${kind}_pingpong" 18515 "$prog" -d rxe0 -g "$gid" -c -- \
		"$prog" -d rxe1 -g "$gid" -c 198.18.0.1
done

# rping listens through the RDMA CM, which binds at once.
pair rping - rping -s -V -a 198.18.0.1 -C 10 -- \
	rping -c -V -a 198.18.0.1 -I 198.18.0.2 -C 10 -v

client_finish
