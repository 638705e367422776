#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ibv_forkcheck on rxe0, on the project's library and on Debian's: its
# verdicts must match what the running kernel does, which this script
# derives from the kernel itself, never from one kernel's behaviour:
#   - netlink: `rdma system show` (iproute2) says "copy-on-fork on" when
#     the kernel sends RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK = 1 (Linux 5.13,
#     commit 6cc9e215eb27), "off" when it sends nothing;
#   - pinned anonymous pages, THP included, are copied into a fork child
#     since Linux 5.9 (commit 70e806e4e645, "mm: Do early cow for pinned
#     pages during fork() for ptes"), pinned hugetlb pages since 5.12
#     (commit 4eae4efa2c, "hugetlb: do early cow when page pinned on src
#     mm"); before that the parent's MR keeps the page the child got, and
#     rxe on 5.10 also fails RDMA on hugetlb MRs before any fork, so
#     "stale" or "broken" are both what such a kernel does;
#   - MAP_SHARED memory is shared with the child on every kernel.
# Both libraries must give the same verdicts: the tool measures the kernel.
#
# usage: our-ibv-forkcheck.sh PATH/TO/PROJECT/libibverbs.so.1 \
#            PATH/TO/OUR/ibv_forkcheck
set -u
# shellcheck source=tests/guest/lib/client.sh
source "$(dirname "$0")/../lib/client.sh"
client_init "${1:-}"
tool=${2:-}

[[ -x $tool ]] || {
	not_ok "our ibv_forkcheck '$tool' is not built"
	client_finish
}

# hugetlb pages for the hugetlb kind, and one more for the child's copy;
# the guest is throwaway, but put the old value back all the same.
old_huge=$(cat /proc/sys/vm/nr_hugepages)
echo 4 >/proc/sys/vm/nr_hugepages
trap 'echo "$old_huge" >/proc/sys/vm/nr_hugepages' EXIT

# release "5.10.0-32-amd64" -> 510, "6.12.117+deb13-amd64" -> 612
IFS=. read -r major minor _ <<<"$(uname -r)"
kver=$((major * 100 + ${minor%%[!0-9]*}))
if rdma system show 2>/dev/null | grep -q 'copy-on-fork on'; then
	want_nl='1'
	want_status=IBV_FORK_UNNEEDED
else
	want_nl='(absent|0)'
	want_status=IBV_FORK_DISABLED
fi
if ((kver >= 509)); then want_anon=kept; else want_anon=stale; fi
if ((kver >= 512)); then want_huge=kept; else want_huge='(stale|broken)'; fi
# A kernel that says it copies must copy every private kind.
if [[ $want_nl == 1 && ($want_anon != kept || $want_huge != kept) ]]; then
	not_ok "kernel $(uname -r) reports copy-on-fork but its version says otherwise"
fi
if [[ $want_anon == kept && $want_huge == kept ]]; then
	want_rc=0
else
	want_rc=1
fi
ok "kernel $(uname -r): expecting netlink $want_nl, anon/thp $want_anon, hugetlb $want_huge, shared kept, exit $want_rc"

for lib in project debian; do
	client_run "$lib" "$lib" "$tool" -d rxe0
	client_expect_rc "$lib" "$want_rc" "ibv_forkcheck on $lib's library"
	client_grep "$lib" "^netlink copy-on-fork: $want_nl\$" \
		"$lib: netlink as rdma system show says"
	client_grep "$lib" "^ibv_is_fork_initialized: $want_status\$" \
		"$lib: ibv_is_fork_initialized() agrees with the kernel"
	client_grep "$lib" "^anon +$want_anon " "$lib: anonymous 4 KiB pages $want_anon"
	# THP may be switched off on a kernel; then it must say so.
	client_grep "$lib" "^thp +($want_anon|not-measured) " \
		"$lib: transparent huge pages $want_anon (or not available)"
	client_grep "$lib" "^hugetlb +$want_huge " "$lib: hugetlb pages $want_huge"
	client_grep "$lib" "^shared +kept " "$lib: MAP_SHARED memory kept"
	client_grep "$lib" "^advice:" "$lib: advice given"
done

# The same verdicts on both libraries: only the kernel decides them.
for lib in project debian; do
	grep -E '^(anon|thp|hugetlb|shared) ' "$client_tmp/$lib.out" |
		awk '{ print $1, $2 }' >"$client_tmp/$lib-verdicts.out"
	: >"$client_tmp/$lib-verdicts.err"
	echo 0 >"$client_tmp/$lib-verdicts.rc"
done
client_same project-verdicts debian-verdicts \
	"ibv_forkcheck: the same verdicts on both libraries"

# Usage errors are status 2 and change nothing.
client_run project usage "$tool" -k nosuchkind
client_expect_rc usage 2 "ibv_forkcheck -k nosuchkind: usage error"

client_finish
