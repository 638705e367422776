#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's UCX (ucx-utils, libucx0: bookworm's 1.13, trixie's 1.18),
# unchanged, on the project's libibverbs.so.1 and, to prove the test, on
# Debian's.  UCX reaches rxe through its verbs transports in
# libuct_ib.so, a module it dlopen()s, which links libibverbs and
# libmlx5.so.1 (the provider ABI).
#
#  - `ucx_info -d` lists the rc_verbs and ud_verbs transports on rxe0:1
#    and rxe1:1.
#  - `ucx_perftest`, each time as a server on rxe0 and a client on rxe1
#    (198.18.0.1; the test's own TCP connection exchanges the addresses),
#    must exit 0 on both sides and the client must print its "Final:"
#    line with the iteration count asked for:
#      UCT am_lat over rc_verbs and over ud_verbs,
#      UCP tag_lat over rc_verbs (with ud_verbs, which UCP needs to wire
#      up an rc_verbs connection: alone it has "no auxiliary transport"
#      and fails with "Destination is unreachable").
#
# What rxe needs from UCX, the same on both libraries:
#  - UCX_IB_GID_INDEX=1: the guest's IPv4 RoCE v2 GID (tests/vm/README.md).
#  - UCX_UD_VERBS_ETH_DGID_CHECK=n: UCX's UD transport checks the
#    destination GID of every packet received over Ethernet and silently
#    drops those that do not match; on rxe with an IPv4 GID it drops them
#    all, so the UD connection times out and UCX aborts ("UD endpoint ...
#    unhandled timeout error").  Over the IPv6 GID (index 0) the check
#    passes, and UD works with it on.  The check is UCX's, in its own
#    code, not a call into libibverbs.
#  - ucx_perftest -P 0 where it takes -P: its own TCP connection, not
#    MPI, exchanges the addresses.  A ucx_perftest built with MPI, as
#    trixie's 1.18 is, calls MPI_Init() whenever its stdin is not a
#    terminal and then uses MPI for the exchange unless -P 0 turns that
#    off; started without mpirun each process is a world of one, and
#    both sides exit 255 before they open a device ("This test should be
#    run with exactly 2 processes in p2p case (actual: 1)", "failed to
#    setup RTE transport").  One built without MPI, as bookworm's 1.13
#    is, has no -P (it takes it for -h and prints its usage), so the
#    script asks `ucx_perftest -h` whether it lists -P.
#  - A UCP run names one device for both sides (UCX_NET_DEVICES=rxe0:1)
#    and the transports (UCX_TLS), so that it runs over verbs and not
#    over TCP or shared memory, which it would prefer on one host.
#
# usage: debian-ucx.sh PATH/TO/PROJECT/libibverbs.so.1
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"

for prog in /usr/bin/ucx_info /usr/bin/ucx_perftest; do
	[[ -x $prog ]] || {
		not_ok "$prog missing (Debian package ucx-utils; buildlib/install-deps)"
		client_finish
	}
done

iters=100
port=13360
ucx_env=(UCX_IB_GID_INDEX=1 UCX_UD_VERBS_ETH_DGID_CHECK=n)
# With MPI, -h calls MPI_Init() too: bounded, so that a hung one cannot
# stop the script here.
no_mpi=()
if timeout -k 5 120 /usr/bin/ucx_perftest -h </dev/null 2>&1 |
	grep -qE '^[[:space:]]+-P <0\|1>'; then
	no_mpi=(-P 0)
	echo "# ucx_perftest is built with MPI: -P 0"
fi

# perftest TAG [VAR=VALUE...] -- ARGS...: one ucx_perftest
# pair on the library of this round, its client naming the server.
perftest() {
	local tag=$1 vars=()
	shift
	while [[ $1 != -- ]]; do
		vars+=("$1")
		shift
	done
	shift
	port=$((port + 1))
	# The server listens for the address exchange on a TCP port.
	CLIENT_PAIR_READY="ss -Hltn 'sport = :$port' | grep -q ." \
		client_pair "$want" "$tag" \
		env "${ucx_env[@]}" "${vars[@]}" /usr/bin/ucx_perftest \
		"$@" "${no_mpi[@]}" -p "$port" -- \
		env "${ucx_env[@]}" "${vars[@]}" /usr/bin/ucx_perftest \
		"${@/rxe0:1/rxe1:1}" "${no_mpi[@]}" -p "$port" 198.18.0.1 || return
	client_pair_grep "$tag" cli "^Final:[[:space:]]+${iters}[[:space:]]" \
		"$tag: client completed $iters iterations"
}

for want in "${client_wants[@]}"; do
	tag=ucx_info-$want
	client_run "$want" "$tag" /usr/bin/ucx_info -d || {
		client_show "$tag"
		continue
	}
	client_expect_rc "$tag" 0 "ucx_info -d ($want)"
	for dev in rxe0:1 rxe1:1; do
		for tl in rc_verbs ud_verbs; do
			# "#      Transport: rc_verbs" then "#         Device: rxe0:1".
			if grep -A1 -E "^#[[:space:]]+Transport: $tl\$" \
				"$client_tmp/$tag.out" |
				grep -qE "^#[[:space:]]+Device: $dev\$"; then
				ok "ucx_info -d ($want) lists $tl on $dev"
			else
				not_ok "ucx_info -d ($want) does not list $tl on $dev"
				client_show "$tag"
			fi
		done
	done

	for tl in rc_verbs ud_verbs; do
		perftest "uct-$tl-$want" -- -d rxe0:1 -x "$tl" -t am_lat \
			-n "$iters" -w 10
	done
	perftest "ucp-rc-$want" UCX_NET_DEVICES=rxe0:1 \
		UCX_TLS=rc_verbs,ud_verbs -- -t tag_lat -n "$iters" -w 10
done

client_finish
