# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The public headers: libibverbs/<name> is installed as <infiniband/<name>>.
#
# They are staged under ${IBV_STAGED_INCLUDE}/infiniband at configure time
# (configure_file registers each source as a configure dependency, so the
# next build re-runs CMake and re-stages a header that changed).  Staging at
# configure time rather than from a build rule means every target, in any
# build order, sees them - and configure-time checks can use them too.

set(IBV_PUBLIC_HEADERS
	verbs.h
	verbs_api.h
	ib_user_ioctl_verbs.h
	sa.h
	sa-kern-abi.h
	arch.h
	opcode.h
	tm_types.h)

set(_ibv_hdr_src_dir "${CMAKE_CURRENT_LIST_DIR}/../libibverbs")
get_filename_component(_ibv_hdr_src_dir "${_ibv_hdr_src_dir}" ABSOLUTE)

set(IBV_PUBLIC_HEADER_SOURCES "")
set(IBV_STAGED_HEADERS "")
foreach(_hdr IN LISTS IBV_PUBLIC_HEADERS)
	configure_file("${_ibv_hdr_src_dir}/${_hdr}"
		"${IBV_STAGED_INCLUDE}/infiniband/${_hdr}" COPYONLY)
	list(APPEND IBV_PUBLIC_HEADER_SOURCES "${_ibv_hdr_src_dir}/${_hdr}")
	list(APPEND IBV_STAGED_HEADERS
		"${IBV_STAGED_INCLUDE}/infiniband/${_hdr}")
endforeach()

# The release macro (buildlib/release.cmake), the one generated header.
configure_file("${_ibv_hdr_src_dir}/verbs_release.h.in"
	"${IBV_STAGED_INCLUDE}/infiniband/verbs_release.h" @ONLY)
list(APPEND IBV_STAGED_HEADERS
	"${IBV_STAGED_INCLUDE}/infiniband/verbs_release.h")

# A target to depend on; the copies themselves are made by configure_file.
add_custom_target(ibv_public_headers SOURCES ${IBV_PUBLIC_HEADER_SOURCES})

install(FILES ${IBV_PUBLIC_HEADER_SOURCES}
	"${IBV_STAGED_INCLUDE}/infiniband/verbs_release.h"
	DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/infiniband")

unset(_hdr)
unset(_ibv_hdr_src_dir)
