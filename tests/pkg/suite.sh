# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# tests/pkg/suite.sh: what the package test knows about each Debian
# release it runs in, in one place (sourced by make-root, run,
# check-install and in-guest).  pkg_suite SUITE sets:
#
#   PKG_RDMA_VERSION  Debian's rdma-core in that release as shipped, the
#                     reference the checks compare with (its stable
#                     updates, +debNNuN, count as the same)
#   PKG_RDMA_PKGS     Debian's RDMA packages whose files must keep working
#                     with ours installed (librdmacm is librdmacm1t64 from
#                     trixie on, the 64-bit time_t transition)
#   PKG_EXTRA         packages of that release's test root beyond the
#                     common ones of make-root
#   PKG_KERNEL        the Debian suite whose kernel the guest boots
#                     (tests/vm/fetch-kernel), empty for tests/vm/run's own
#                     (the host's, bookworm's 6.1)
#   PKG_GUEST_TIMEOUT seconds check-install's first guest boot (our
#                     library) may take (PKG_VM_TIMEOUT overrides):
#                     trixie's runs the whole client set, 11 minutes up to
#                     perftest's end on a 2-core machine with a load of 20,
#                     a few on CI's; the boot after the purge, without the
#                     client set, has 600 s in every release
#   PKG_CLIENTS       1: in-guest runs the release's whole client set
#                     (pingpongs, rdmacm examples, perftest, libfabric, UCX)
#                     besides the checks every release gets, on our library
#   PKG_UCX           1: that client set includes UCX over verbs
#                     (debian-ucx.sh); sid's libucx0 (1.23.0~rc1-1) is built
#                     without the verbs transports (no libuct_ib, no
#                     dependency on libibverbs1), so UCX cannot use rxe
#                     there; its files are still checked (ldd)
#   PKG_PABI          the provider interface's number of the release's
#                     plug-ins (librxe-rdmav34.so, ...rdmav65.so), for
#                     in-guest's check that Debian's rxe plug-in is back
#
# The rdma-core release the packages carry follows from the root they are
# built in (debian/rules reads its libibverbs-dev), not from here.

pkg_suite() { # SUITE
	local common="libibverbs1 libibverbs-dev ibverbs-providers ibverbs-utils
		rdmacm-utils rdma-core python3-pyverbs perftest libfabric1
		libfabric-bin"
	case $1 in
	bookworm)
		PKG_RDMA_VERSION=44.0-2
		PKG_RDMA_PKGS="$common librdmacm1"
		PKG_EXTRA=""
		PKG_KERNEL=""
		PKG_GUEST_TIMEOUT=600
		PKG_CLIENTS=0
		PKG_UCX=0
		PKG_PABI=34
		;;
	trixie)
		PKG_RDMA_VERSION=56.1-1
		PKG_RDMA_PKGS="$common librdmacm1t64 libucx0 ucx-utils"
		PKG_EXTRA="ucx-utils"
		PKG_KERNEL=trixie
		PKG_GUEST_TIMEOUT=1200
		PKG_CLIENTS=1
		PKG_UCX=1
		PKG_PABI=34
		;;
	sid)
		PKG_RDMA_VERSION=65.0-1.1
		PKG_RDMA_PKGS="$common librdmacm1t64 libucx0 ucx-utils"
		PKG_EXTRA="ucx-utils"
		PKG_KERNEL=sid
		PKG_GUEST_TIMEOUT=1200
		PKG_CLIENTS=1
		PKG_UCX=0
		PKG_PABI=65
		;;
	*)
		echo "tests/pkg: no package test for Debian '$1' (bookworm, trixie, sid)" >&2
		return 2
		;;
	esac
}

# The suite of the Debian root DIR (its /etc/os-release).  Unstable has
# no codename of its own: its base-files names the next release (forky,
# "forky/sid" in /etc/debian_version), as testing's does; a root whose
# debian_version ends in "/sid" is taken for sid, the one of the two that
# make-root builds.
pkg_root_suite() { # DIR
	(
		# shellcheck disable=SC1091
		. "$1/etc/os-release" &&
			if [[ $(cat "$1/etc/debian_version" 2>/dev/null) == */sid ]]; then
				echo sid
			else
				echo "${VERSION_CODENAME:?}"
			fi
	)
}
