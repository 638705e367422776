#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# On a kernel that reports copy-on-fork, 1,000 registrations with
# RDMAV_FORK_SAFE=1 must not issue a single MADV_DONTFORK or MADV_DOFORK.
# Upstream marks pages whenever fork support is asked for: the count is a
# guard check (" # guard", as gc_guard() prints); running the loop is not.
# Usage: fork_madvise_strace.sh PATH-TO-fork_madvise
set -u
bin=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# LeakSanitizer cannot run under ptrace (an ASan build of the test).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

if ! RDMAV_FORK_SAFE=1 strace -f -qq -e trace=madvise -o "$log" \
	"$bin" loop; then
	echo "not ok 1 - 1,000 reg/dereg pairs under strace"
	echo "0 passed, 1 failed"
	exit 1
fi
n=$(grep -c 'MADV_DONTFORK\|MADV_DOFORK' "$log")
echo "# $(grep -c madvise "$log") madvise calls in all, $n fork-related"
# A kernel that does not report copy-on-fork (before 5.13) gets tracking,
# ours as upstream's: the library cannot know that pages are copied.
if ! rdma system show 2>/dev/null | grep -q 'copy-on-fork on'; then
	echo "# no guard on this kernel: it does not report copy-on-fork, so RDMAV_FORK_SAFE tracks, as upstream's"
	echo "ok 1 - 1,000 reg/dereg pairs under strace"
	if [ "$n" -ge 1000 ]; then
		echo "ok 2 - tracking: $n MADV_DONTFORK/DOFORK calls over 1,000 reg/dereg pairs"
		echo "2 passed, 0 failed"
		exit 0
	fi
	echo "not ok 2 - tracking: only $n MADV_DONTFORK/DOFORK calls over 1,000 reg/dereg pairs"
	echo "1 passed, 1 failed"
	exit 1
fi
if [ "$n" -eq 0 ]; then
	echo "ok 1 - 1,000 reg/dereg pairs under strace"
	echo "ok 2 - no MADV_DONTFORK/DOFORK over 1,000 reg/dereg pairs # guard"
	echo "2 passed, 0 failed"
	exit 0
fi
echo "ok 1 - 1,000 reg/dereg pairs under strace"
echo "not ok 2 - $n MADV_DONTFORK/DOFORK calls over 1,000 reg/dereg pairs # guard"
echo "1 passed, 1 failed"
exit 1
