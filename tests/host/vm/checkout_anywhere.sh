#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# checkout_anywhere.sh TOP: a checkout works wherever it is cloned, root's
# home and /var/tmp included, which the guest covers with tmpfs mounts of
# its own but then mounts the checkout over, at its own path.  For each of
# /root and /var/tmp: copy TOP's tracked and untracked, not ignored files
# (what a clone of this tree would hold) into a new directory there, make
# it a git checkout, and from it
#   - bench/run --instructions --build-only must configure and build
#     build-icount/ inside the copy (as buildlib/run-tests does first),
#     in /var/tmp only: where it builds does not change the build, and
#     CI's run pays for every build;
#   - tests/vm/visible must accept the copy's build tree and refuse a path
#     beside the copy and one under /tmp, each naming the mount that
#     hides it; accept the host's /usr/lib, and refuse it with VM_ROOT.
# Needs root (/root); otherwise exit 77, a skip, except in CI (CI=true),
# which runs as root.  A tree with no .git (a package build's source,
# which CI builds too) has no clone to imitate: a skip, in CI as well; a
# tree with one that git cannot read fails in CI.
set -uo pipefail
top=$1
n=0 failed=0

check() { # NAME COMMAND...: one TAP line
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
	fi
}

if ((EUID != 0)); then
	echo "# skip: needs root to write under /root"
	[[ ${CI:-} == true ]] && exit 1
	exit 77
fi
# Root runs git in a checkout another user owns, which git refuses
# ("dubious ownership") unless told that this one is safe.
git_top() { git -c safe.directory='*' -C "$top" "$@"; }
if [[ ! -e $top/.git ]]; then
	echo "# skip: $top is not a git checkout (no .git)"
	exit 77
fi
if ! err=$(git_top rev-parse --git-dir 2>&1 >/dev/null); then
	echo "# $top: git cannot read the checkout: $err"
	[[ ${CI:-} == true ]] && exit 1
	exit 77
fi

# A run killed by ctest's limit (SIGKILL) leaves its copies behind: remove
# those older than that limit (20 minutes, CMakeLists.txt), which no run
# still uses.
for base in /root /var/tmp; do
	find "$base" -maxdepth 1 -name 'ibverbs-checkout.*' -mmin +20 \
		-exec rm -rf {} + 2>/dev/null
done
find /tmp -maxdepth 1 -name 'ibverbs-outside.*' -mmin +20 \
	-exec rm -rf {} + 2>/dev/null

dirs=()
trap 'rm -rf "${dirs[@]}"' EXIT
# SIGTERM and SIGINT end the script through the EXIT trap, not around it.
trap 'exit 143' TERM
trap 'exit 130' INT

# copy_checkout DEST: TOP's files as a clone of this tree would have them,
# uncommitted changes included; deleted tracked files are left out.
copy_checkout() {
	git_top ls-files -z -co --exclude-standard |
		(cd "$top" && while IFS= read -r -d '' f; do
			[[ ! -e $f && ! -L $f ]] || printf '%s\0' "$f"
		done | xargs -0 cp --parents -d -t "$1" --) &&
		git -C "$1" init -q # no commit: needs no user.name or email
}

# build_icount COPY: what run-tests does first, in COPY; its output is
# shown only when it fails.
build_icount() {
	local log=$1.log
	if ! (cd "$1" && nice bench/run --instructions --build-only) \
		>"$log" 2>&1; then
		tail -n 30 "$log" | sed 's/^/# /'
		return 1
	fi
	[[ -x $1/build-icount/bench/icount &&
		-e $1/build-icount/lib/libibverbs.so.1 ]]
}

# refused COPY PATH MOUNT: visible refuses PATH, naming MOUNT.
refused() {
	local out rc=0
	out=$("$1/tests/vm/visible" "$2" 2>&1) || rc=$?
	echo "# $out"
	((rc == 2)) && [[ $out == *" on $3 "* ]]
}

# vm_root_refused COPY ROOT: with VM_ROOT=ROOT, no host path outside COPY.
vm_root_refused() {
	local out rc=0
	out=$(VM_ROOT=$2 "$1/tests/vm/visible" /usr/lib 2>&1) || rc=$?
	echo "# $out"
	((rc == 2)) && [[ $out == *"VM_ROOT=$2"* ]]
}

for base in /root /var/tmp; do
	copy=$(mktemp -d "$base/ibverbs-checkout.XXXXXX") || exit 1
	dirs+=("$copy" "$copy.log")
	t0=$(date +%s)
	check "copy of the checkout in $base" copy_checkout "$copy"
	# One build is enough to show that a copy builds away from the
	# original; the guest's view, which differs by place, is checked in
	# both.
	if [[ $base == /var/tmp ]]; then
		check "bench/run --instructions --build-only in $base builds build-icount/" \
			build_icount "$copy"
		echo "# $(($(date +%s) - t0)) s"
	fi
	check "the guest sees the copy's build tree in $base" \
		"$copy/tests/vm/visible" "$copy/build-icount"
	check "a path beside the copy in $base is refused, naming $base" \
		refused "$copy" "$copy-beside/build" "$base"
	tmp=$(mktemp -d /tmp/ibverbs-outside.XXXXXX) || exit 1
	dirs+=("$tmp")
	check "a path under /tmp outside the copy is refused, naming /tmp" \
		refused "$copy" "$tmp/build" /tmp
	check "the host's /usr/lib, outside the copy, is seen" \
		"$copy/tests/vm/visible" /usr/lib
	check "with VM_ROOT the copy's build tree is still seen" \
		env VM_ROOT="$tmp" "$copy/tests/vm/visible" "$copy/build-icount"
	check "with VM_ROOT the host's /usr/lib is refused, naming VM_ROOT" \
		vm_root_refused "$copy" "$tmp"
done
echo "1..$n"
((failed == 0))
