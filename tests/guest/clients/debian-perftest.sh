#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's perftest, unchanged, on the project's libibverbs.so.1 and, to
# prove the test, on Debian's: ib_send_lat, ib_write_bw, ib_read_lat,
# ib_atomic_lat and ib_send_bw, each as a server on rxe0 (198.18.0.1) and a
# client on rxe1 (198.18.0.2), connected with rdma_cm (-R).  perftest links
# libmlx5.so.1 and libefa.so.1 directly and librdmacm, so it only starts on
# a library with the provider ABI (IBVERBS_PRIVATE_34); until then the
# loader stops it with "symbol lookup error".
#
# Each pair must exit 0 on both sides, have run on the library asked for
# (loader trace), and the client must print perftest's result table: the
# header line (#bytes, #iterations, ...) and a line of numbers under it,
# with the iteration count asked for.  A run that moved nothing prints no
# such line.
#
# usage: debian-perftest.sh PATH/TO/PROJECT/libibverbs.so.1
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"

iters=100
# Each tool gets a port of its own: no wait for the previous one's.
port=18600
# -F: no cpufreq warning (the guest has no cpufreq); -R: rdma_cm.
common=(-R -F -n "$iters")

for want in "${client_wants[@]}"; do
	for tool in ib_send_lat ib_write_bw ib_read_lat ib_atomic_lat ib_send_bw; do
		prog=/usr/bin/$tool
		tag=$tool-$want
		port=$((port + 1))
		[[ -x $prog ]] || {
			not_ok "$prog missing (Debian package perftest; buildlib/install-deps)"
			continue
		}
		client_pair "$want" "$tag" \
			"$prog" -d rxe0 "${common[@]}" -p "$port" -- \
			"$prog" -d rxe1 "${common[@]}" -p "$port" \
			--source_ip 198.18.0.2 198.18.0.1 || continue
		client_pair_grep "$tag" cli '#bytes[[:space:]]+#iterations' \
			"$tag: client prints the result table header"
		# bytes, iterations, then at least two measured numbers.
		client_pair_grep "$tag" cli \
			"^[[:space:]]*[0-9]+[[:space:]]+${iters}[[:space:]]+[0-9]+(\.[0-9]+)?[[:space:]]+[0-9]+(\.[0-9]+)?" \
			"$tag: client prints a result line for $iters iterations"
	done
done

client_finish
