#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# hidden_mounts.sh TOP: tests/vm/visible's list of what the guest hides
# is exactly what tests/vm/guest-init mounts over the guest's root (the
# outermost mounts on /host/PATH, PATH written out: the checkout's and
# the control share's mount points are variables).  guest-init runs
# under busybox from a cached initramfs and cannot source the list, so
# this test keeps the two in step.
set -euo pipefail
top=$1

# "PATH FSTYPE" of each "mount -t FSTYPE ... /host/PATH" line.
mounted=$(sed -nE 's|^[[:space:]]*mount -t ([^ ]+) .*"?/host(/[^ "$]+)"?( .*)?$|\2 \1|p' \
	"$top/tests/vm/guest-init" | sort -u)
# Keep the outermost: /dev/pts and /dev/shm are hidden with /dev.
outer=$(awk '{ p[NR] = $1; l[NR] = $0 }
	END { for (i = 1; i <= NR; i++) { keep = 1
		for (j = 1; j <= NR; j++)
			if (j != i && index(p[i], p[j] "/") == 1) keep = 0
		if (keep) print l[i] } }' <<<"$mounted" | sort)
listed=$("$top/tests/vm/visible" --hidden | sort)

n=0
echo "1..1"
[[ -n $outer ]] || { echo "not ok 1 - guest-init: no mounts found"; exit 1; }
echo "# guest-init mounts: $(tr '\n' ',' <<<"$mounted")"
if [[ $outer == "$listed" ]]; then
	echo "ok 1 - tests/vm/visible lists what guest-init mounts over /"
else
	echo "not ok 1 - tests/vm/visible lists what guest-init mounts over /"
	# diff exits 1 on a difference: under set -e and pipefail that
	# would end the script before it says so.
	diff <(echo "$listed") <(echo "$outer") | sed 's/^/# /' || true
	n=1
fi
exit "$n"
