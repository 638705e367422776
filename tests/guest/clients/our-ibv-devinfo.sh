#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The project's own tools on the project's library: `ibv_devinfo -v` shows
# rxe0 and rxe1, and prints what Debian's ibv_devinfo prints on Debian's
# libibverbs, field for field (the tools promise upstream's output format);
# ibv_devices likewise.  The one line ours adds, fork_support, must agree
# with `rdma system show` and is left out of the comparison.
#
# usage: our-ibv-devinfo.sh PATH/TO/PROJECT/libibverbs.so.1 \
#            PATH/TO/OUR/ibv_devinfo [PATH/TO/OUR/ibv_devices]
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"
devinfo=${2:-}
devices=${3:-}

[[ -x $devinfo ]] || {
	not_ok "our ibv_devinfo '$devinfo' is not built"
	client_finish
}

client_run project ours-v "$devinfo" -v
client_expect_rc ours-v 0 "our ibv_devinfo -v"
for dev in rxe0 rxe1; do
	client_grep ours-v "^hca_id:[[:space:]]+$dev\$" "our ibv_devinfo -v shows $dev"
done
client_grep ours-v "GID\[ *0\]:" "our ibv_devinfo -v shows the GID table"

# The kernel's copy-on-fork answer as iproute2 reads it.
if rdma system show 2>/dev/null | grep -q 'copy-on-fork on'; then
	want_fork='unneeded (kernel copies DMA pages on fork)'
else
	want_fork='disabled'
fi
n=$(grep -c "^	fork_support:[[:space:]]*$want_fork\$" \
	"$client_tmp/ours-v.out")
if [[ $n == 2 ]]; then
	ok "our ibv_devinfo: fork_support '$want_fork' on both devices, as rdma system show says"
else
	not_ok "our ibv_devinfo: fork_support '$want_fork' expected on 2 devices, found $n"
	client_show ours-v
fi

# Our addition, taken out before comparing with upstream's format.
drop_fork_line() { # TAG
	sed -i '/^	fork_support:/d' "$client_tmp/$1.out"
}

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
	[[ $tag == v ]] || client_run project "ours-$tag" "$devinfo" "${args[@]}"
	client_run debian "deb-$tag" /usr/bin/ibv_devinfo "${args[@]}"
	drop_fork_line "ours-$tag"
	client_same "ours-$tag" "deb-$tag" "our ibv_devinfo ${args[*]} vs Debian's"
done

if [[ -n $devices ]]; then
	if [[ -x $devices ]]; then
		client_run project ours-devices "$devices"
		client_expect_rc ours-devices 0 "our ibv_devices"
		client_run debian deb-devices /usr/bin/ibv_devices
		client_same ours-devices deb-devices "our ibv_devices vs Debian's"
	else
		not_ok "our ibv_devices '$devices' is not built"
	fi
fi

client_finish
