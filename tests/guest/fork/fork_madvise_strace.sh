#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# On a kernel that copies on fork, 1,000 registrations with
# RDMAV_FORK_SAFE=1 must not issue a single MADV_DONTFORK or MADV_DOFORK.
# Usage: fork_madvise_strace.sh PATH-TO-fork_madvise
set -u
bin=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if ! RDMAV_FORK_SAFE=1 strace -f -qq -e trace=madvise -o "$log" \
	"$bin" loop; then
	echo "not ok 1 - 1,000 reg/dereg pairs under strace"
	echo "0 passed, 1 failed"
	exit 1
fi
n=$(grep -c 'MADV_DONTFORK\|MADV_DOFORK' "$log")
echo "# $(grep -c madvise "$log") madvise calls in all, $n fork-related"
if [ "$n" -eq 0 ]; then
	echo "ok 1 - no MADV_DONTFORK/DOFORK over 1,000 reg/dereg pairs"
	echo "1 passed, 0 failed"
	exit 0
fi
echo "not ok 1 - $n MADV_DONTFORK/DOFORK calls over 1,000 reg/dereg pairs"
echo "0 passed, 1 failed"
exit 1
