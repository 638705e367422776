# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# RDMA_CORE_RELEASE: the rdma-core release whose libibverbs.so.1 this build
# replaces, 44 (Debian bookworm), 56 (Debian trixie) or 65 (Debian sid).
#
# One binary cannot serve two releases: rdma-core 45 grew struct
# ibv_qp_ex, which moved the members of struct verbs_qp that plug-ins
# share with the library, under the same IBVERBS_PRIVATE_34 node and the
# same -rdmav34.so suffix.  So the release is chosen when configuring.
# The default is the release of Debian's libibverbs1 installed on the
# build host (dpkg-query), so that the library built there loads that
# host's plug-ins; 44 when it is not installed or is a release still in
# progress (IBV_RELEASES_COMPLETE).  Only Debian's package is
# asked, never pkg-config, which may find this project's own installed
# libibverbs.pc and so make the default depend on what was installed.
#
# Included before project(): the release is part of the project's
# version (1.14.<release>.0, as upstream numbers its library).
#
# What differs between releases lives in a few named places, each keyed
# by this number and nothing else (and its Debian suite, which
# buildlib/fetch-release maps it to):
#   - IBV_RDMA_CORE_RELEASE in <infiniband/verbs_release.h>, the one
#     macro the headers and sources test;
#   - libibverbs/libibverbs.map, preprocessed with the same macro;
#   - the functions a release added, one file each, listed in
#     libibverbs/CMakeLists.txt (IBVERBS_SINCE_<release>);
#   - the facts the tests compare against, in a <release>/ directory
#     beside 44's where a release differs (tests/data/56/, ...), which
#     ibv_release_data() picks.
# A new release adds its number to IBV_RELEASES, its suite to
# buildlib/fetch-release and
# those places.

set(IBV_RELEASES 44 56 65)
# The releases whose work is done: only these are chosen by default.
# 65 is still in progress and is built only when asked for by name.
set(IBV_RELEASES_COMPLETE 44 56)

# The provider interface's number (rdma-core's IBVERBS_PABI_VERSION): it
# names the private version node (IBVERBS_PRIVATE_<n>), the plug-ins'
# file suffix (lib<name>-rdmav<n>.so) and their registration entry point
# (verbs_register_driver_<n>).  rdma-core 34 to 56 kept 34; 57, 59 and 65
# renamed it, and sid's 65.0 has 65.  Sources take it from
# libibverbs/provider_abi.h, which derives it from the release macro;
# CMake needs it for the test plug-ins' file names.
function(_ibv_pabi_version out release)
	if(release GREATER_EQUAL 65)
		set(${out} 65 PARENT_SCOPE)
	else()
		set(${out} 34 PARENT_SCOPE)
	endif()
endfunction()

function(_ibv_host_rdma_core_release out)
	set(_rel "")
	find_program(_ibv_dpkg_query NAMES dpkg-query)
	if(_ibv_dpkg_query)
		execute_process(COMMAND "${_ibv_dpkg_query}" -W
			-f "\${Version}" libibverbs1
			OUTPUT_VARIABLE _ver ERROR_QUIET
			RESULT_VARIABLE _rc)
		# Debian's version: [epoch:]<release>.<minor>-<revision>.
		if(_rc EQUAL 0 AND _ver MATCHES "^([0-9]+:)?([0-9]+)\\.")
			set(_rel "${CMAKE_MATCH_2}")
		endif()
	endif()
	if(NOT _rel)
		set(_rel 44)
	endif()
	set(${out} "${_rel}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED RDMA_CORE_RELEASE)
	_ibv_host_rdma_core_release(_ibv_host_release)
	if(NOT _ibv_host_release IN_LIST IBV_RELEASES_COMPLETE)
		message(WARNING "rdma-core ${_ibv_host_release} on this host is "
			"not a release this library implements in full "
			"(${IBV_RELEASES_COMPLETE}); building for 44 "
			"(-DRDMA_CORE_RELEASE=N chooses another)")
		set(_ibv_host_release 44)
	endif()
	set(RDMA_CORE_RELEASE "${_ibv_host_release}" CACHE STRING
		"rdma-core release to replace (${IBV_RELEASES})")
endif()
set_property(CACHE RDMA_CORE_RELEASE PROPERTY STRINGS ${IBV_RELEASES})
if(NOT RDMA_CORE_RELEASE IN_LIST IBV_RELEASES)
	message(FATAL_ERROR "RDMA_CORE_RELEASE=${RDMA_CORE_RELEASE}: "
		"one of ${IBV_RELEASES}")
endif()
message(STATUS "Building for rdma-core ${RDMA_CORE_RELEASE}")
if(NOT RDMA_CORE_RELEASE IN_LIST IBV_RELEASES_COMPLETE)
	message(WARNING "rdma-core ${RDMA_CORE_RELEASE} support is still "
		"in progress: not every verb of that release is there yet")
endif()
_ibv_pabi_version(IBV_PABI_VERSION "${RDMA_CORE_RELEASE}")
set(IBV_PROVIDER_SUFFIX "-rdmav${IBV_PABI_VERSION}.so")

# Where the reference is: the Debian packages of the release (44:
# bookworm, 56: trixie, 65: sid, mapped in buildlib/fetch-release).  A build for the host's own release compares
# with the host's installed rdma-core, as always.  Any other release's
# packages are fetched (buildlib/fetch-release, cached, apt with a private
# configuration) by the tests that need them: a test command is prefixed
# with IBV_RELEASE_RUN, and IBV_RELEASE_ROOT ("@ROOT@", which that
# replaces with the unpacked packages' directory) goes before the paths
# of the reference files.  For the host's release both are empty.
_ibv_host_rdma_core_release(IBV_HOST_RDMA_CORE_RELEASE)
# The host's provider interface: where it differs from the build's, the
# host's libraries that import it (libfabric through libefa, ...) cannot
# resolve against this library, and tests linked to them are for a root
# of the release, not for the host.
_ibv_pabi_version(IBV_HOST_PABI_VERSION "${IBV_HOST_RDMA_CORE_RELEASE}")
if(RDMA_CORE_RELEASE EQUAL IBV_HOST_RDMA_CORE_RELEASE)
	set(IBV_RELEASE_RUN)
	set(IBV_RELEASE_ROOT "")
else()
	set(IBV_RELEASE_RUN
		"${CMAKE_CURRENT_LIST_DIR}/fetch-release" "${RDMA_CORE_RELEASE}"
		--exec)
	set(IBV_RELEASE_ROOT "@ROOT@")
	message(STATUS "Tests compare with Debian's rdma-core "
		"${RDMA_CORE_RELEASE} packages (buildlib/fetch-release)")
endif()

# The release's file among FILE's per-release versions: DIR/<release>/NAME
# when that exists, else DIR/NAME (the 44 facts, which a later release
# shares until it changes them).
function(ibv_release_data out dir name)
	if(EXISTS "${dir}/${RDMA_CORE_RELEASE}/${name}")
		set(${out} "${dir}/${RDMA_CORE_RELEASE}/${name}" PARENT_SCOPE)
	else()
		set(${out} "${dir}/${name}" PARENT_SCOPE)
	endif()
endfunction()
