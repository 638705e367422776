#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's libfabric 1.17 tools, unchanged, on the project's
# libibverbs.so.1 and, to prove the test, on Debian's.  libfabric links
# libefa.so.1 and librdmacm, so, like perftest, it only starts on a library
# with the provider ABI (IBVERBS_PRIVATE_34).
#
#  - `fi_info -p verbs` must exit 0 and list a verbs domain rxe0 (and
#    rxe1): libfabric's verbs provider found the devices through
#    ibv_get_device_list() and their addresses through rdma_cm.
#  - `fi_pingpong -p verbs -e msg`, server on rxe0 (198.18.0.1), with data
#    checks (-c), must complete on both sides and the client must print
#    its result line (size, transfers sent and acknowledged, time, rates).
#    The client names no domain: fi_pingpong has no source address
#    option, so libfabric picks the device by the route to 198.18.0.1,
#    which is local: rxe0 talks to itself (with -d rxe1 fi_getinfo fails
#    with ENODATA, on Debian's library too).
#
# usage: debian-libfabric.sh PATH/TO/PROJECT/libibverbs.so.1
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"

for prog in /usr/bin/fi_info /usr/bin/fi_pingpong; do
	[[ -x $prog ]] || {
		not_ok "$prog missing (Debian package libfabric-bin; buildlib/install-deps)"
		client_finish
	}
done

iters=50
port=47700
for want in "${client_wants[@]}"; do
	tag=fi_info-$want
	client_run "$want" "$tag" /usr/bin/fi_info -p verbs || {
		client_show "$tag"
		continue
	}
	client_expect_rc "$tag" 0 "fi_info -p verbs ($want)"
	for dev in rxe0 rxe1; do
		client_grep "$tag" "^[[:space:]]*domain:[[:space:]]+$dev\$" \
			"fi_info -p verbs ($want) lists the verbs domain $dev"
	done
	client_grep "$tag" "^[[:space:]]*provider:[[:space:]]+verbs" \
		"fi_info -p verbs ($want) names the verbs provider"

	tag=fi_pingpong-$want
	port=$((port + 1))
	client_pair "$want" "$tag" \
		/usr/bin/fi_pingpong -p verbs -e msg -d rxe0 -B "$port" \
		-I "$iters" -S 1024 -c -- \
		/usr/bin/fi_pingpong -p verbs -e msg -P "$port" \
		-I "$iters" -S 1024 -c 198.18.0.1 || continue
	# "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec", then
	# e.g. "1k 50 =50 100k 0.01s 7.31 140.06 0.01".
	client_pair_grep "$tag" cli '^bytes[[:space:]]+#sent[[:space:]]+#ack' \
		"$tag: client prints the result header"
	client_pair_grep "$tag" cli \
		"^1k[[:space:]]+${iters}[[:space:]]+=${iters}[[:space:]]" \
		"$tag: client sent $iters transfers of 1k and all were acknowledged"
done

client_finish
