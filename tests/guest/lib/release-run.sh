#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/guest/lib/release-run.sh ARCH LOADER PROGRAM [ARG...]
#
# Runs PROGRAM, built here for another rdma-core release than the
# guest's (a build-56/ tree on bookworm's userland), on that release's
# own libibverbs and provider plug-ins: the Debian twin of a test of the
# release build.  The release's packages and libc, unpacked by
# buildlib/fetch-release on the host, are in $IBV_RELEASE_ROOT_DIR (the
# guest sees the host's / read-only, so it cannot fetch them itself).
#
# PROGRAM needs the release's glibc (trixie's plug-ins want 2.38), so it
# is started by the release's dynamic loader, with the release's library
# directory first on its search path (which beats the program's RUNPATH).
# Its libibverbs loads the plug-ins from the directory compiled into it,
# /usr/lib/<arch>/libibverbs, where the guest has bookworm's: a private
# mount namespace binds the release's plug-ins over it, so that the
# release's librxe serves rxe and no plug-in of another release is
# mapped.  GC_EXPECT_LIB names the release's libibverbs, so a test fails
# if anything else was mapped.
#
# Exit status: PROGRAM's; 77 (skipped) when IBV_RELEASE_ROOT_DIR is not
# set or has no loader.
set -euo pipefail

(($# >= 3)) || {
	echo "usage: release-run.sh ARCH LOADER PROGRAM [ARG...]" >&2
	exit 2
}
# ARCH: Debian's multiarch triplet (x86_64-linux-gnu), the build's.
# LOADER: the dynamic loader's file name there (ld-linux-x86-64.so.2),
# IBV_RELEASE_LOADER of tests/ibv_test.cmake, which has the table.
arch=$1 loader_name=$2
shift 2
root=${IBV_RELEASE_ROOT_DIR:-}
lib=$root/usr/lib/$arch
loader=$lib/$loader_name
if [[ -z $root || $loader_name == */* || ! -e $loader ]]; then
	echo "# SKIP no release root with a dynamic loader (IBV_RELEASE_ROOT_DIR='$root')"
	exit 77
fi
export GC_EXPECT_LIB=$lib/libibverbs.so
unset LD_LIBRARY_PATH
# The plug-ins of the direct-verbs providers (mlx5, efa, ...) are
# relative symbolic links into the parent directory, which is the
# guest's, not the release's: the directory bound is one of absolute links
# to the release's files, made in the guest's /tmp (a tmpfs) and removed
# afterwards.
exec unshare -m -- /bin/sh -c '
	lib=$1 arch=$2
	shift 2
	dir=$(mktemp -d) || exit 1
	for f in "$lib"/libibverbs/*; do
		ln -s "$(readlink -f "$f")" "$dir/${f##*/}" || exit 1
	done
	mount --bind "$dir" "/usr/lib/$arch/libibverbs" || exit 1
	"$@"
	rc=$?
	umount "/usr/lib/$arch/libibverbs"
	rm -rf "$dir"
	exit $rc' sh "$lib" "$arch" \
	"$loader" --library-path "$lib:/usr/lib/$arch:/lib/$arch" "$@"
