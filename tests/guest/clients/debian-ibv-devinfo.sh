#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's own /usr/bin/ibv_devinfo, unchanged, on the project's
# libibverbs.so.1 prints field for field what the same binary prints on
# Debian's libibverbs in the same guest: stdout, stderr and exit status
# compared byte for byte, for the full verbose dump and for the option
# paths that reach other verbs (one device, one port, a bad device name,
# a port that does not exist).  No line may differ: both libraries read the
# same kernel.
#
# usage: debian-ibv-devinfo.sh PATH/TO/PROJECT/libibverbs.so.1
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"

tool=/usr/bin/ibv_devinfo
[[ -x $tool ]] || {
	not_ok "$tool missing (Debian package ibverbs-utils; buildlib/install-deps)"
	client_finish
}

# Each case: a tag and the arguments.
cases=(
	"v|-v"
	"list|-l"
	"rxe1p1|-d rxe1 -i 1"
	"badport|-d rxe0 -i 2"
	"baddev|-d nosuchdev"
)

for c in "${cases[@]}"; do
	tag=${c%%|*}
	read -r -a args <<<"${c#*|}"
	client_run project "ours-$tag" "$tool" "${args[@]}"
	client_run debian "deb-$tag" "$tool" "${args[@]}"
	client_same "ours-$tag" "deb-$tag" "ibv_devinfo ${args[*]}"
done

# An identical pair of empty outputs proves nothing: the verbose dump must
# really show both devices and their GIDs.
for dev in rxe0 rxe1; do
	client_grep ours-v "^hca_id:[[:space:]]+$dev\$" "ibv_devinfo -v shows $dev"
done
client_grep ours-v "GID\[ *0\]:" "ibv_devinfo -v shows the GID table"
client_grep ours-v "max_mr_size:" "ibv_devinfo -v shows the device attributes"
client_expect_rc ours-v 0 "ibv_devinfo -v on our library"

client_finish
