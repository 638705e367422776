#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's own /usr/bin/ibv_devices, unchanged, on the project's
# libibverbs.so.1: it must run on our library (loader trace), list rxe0 and
# rxe1 with the node GUIDs the kernel has, and print exactly what it prints
# on Debian's libibverbs in the same guest.
#
# usage: debian-ibv-devices.sh PATH/TO/PROJECT/libibverbs.so.1
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"

tool=/usr/bin/ibv_devices
[[ -x $tool ]] || {
	not_ok "$tool missing (Debian package ibverbs-utils; buildlib/install-deps)"
	client_finish
}

client_run project ours "$tool"
client_expect_rc ours 0 "ibv_devices on our library"
for dev in rxe0 rxe1; do
	# sysfs prints the GUID as 4 groups of 16 bits, ibv_devices as one.
	guid=$(tr -d ':\n' </sys/class/infiniband/$dev/node_guid)
	client_grep ours "^[[:space:]]+${dev}[[:space:]]+${guid}\$" \
		"ibv_devices lists $dev with node GUID $guid"
done

client_run debian deb "$tool"
client_same ours deb "ibv_devices"

client_finish
