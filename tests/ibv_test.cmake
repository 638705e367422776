# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ibv_test(): the one way a test is registered with ctest, so that every
# test is named, labelled and run on the libraries the same way.
#
#   ibv_test(AREA.NAME[.MODE...] COMMAND prog [args...]
#            [ENV VAR=VALUE...] [LABELS label...] [TIMEOUT seconds]
#            [GUARD] [OURS_ONLY] [DEBIAN] [DEBIAN_COMMAND prog [args...]]
#            [PROPERTIES prop value...])
#
# The name is <area>.<name>[.<mode>]: AREA is the folder the test lives in
# (tests/host/AREA, tests/guest/AREA, tests/AREA; tests/guest/clients is
# "client"), NAME says what it tests, MODE the environment it runs in
# (legacy, beyond, old_kernel, plugin, builtin, ...).  Names are lower
# case, digits and "_" between the dots, and unique across host and guest
# tests; whether a test runs on the host or in the guest is its label.
#
# A test under tests/guest gets the labels "guest" and AREA, and is
# registered twice, as every in-guest test binary also runs on Debian's
# libibverbs (same binary, other LD_LIBRARY_PATH):
#   AREA.NAME[.MODE]         on the project's library, found through the
#                            build tree's RUNPATH;
#   AREA.NAME[.MODE].debian  label "debian", on Debian's libibverbs and
#                            plug-ins (LD_LIBRARY_PATH), which proves the
#                            test against upstream.
# GC_EXPECT_LIB tells each variant which library it must have mapped
# (tests/guest/common).  OURS_ONLY: no Debian variant, for a test that
# chooses the library of each run itself (clients, valgrind).  GUARD: the
# label "guard", a test of a guarantee upstream lacks, whose "# guard"
# checks must fail on Debian's library (tests/guest/run-all).
#
# A test anywhere else is a host test (label "host"), with a Debian variant
# only when asked: DEBIAN (the same command on Debian's library) or
# DEBIAN_COMMAND (another command, e.g. the same checker pointed at
# Debian's library).
#
# Modes that are a build or a pass of tests/guest/run-all, not a
# registration (the ASan/UBSan build, the plug-in pass), are not in the
# name: run-all's result lines name the phase ("asan:",
# "plugin-c-ours:").
if(CMAKE_LIBRARY_ARCHITECTURE)
	set(IBV_DEBIAN_ARCH "${CMAKE_LIBRARY_ARCHITECTURE}")
else()
	set(IBV_DEBIAN_ARCH "x86_64-linux-gnu")
endif()
set(IBV_DEBIAN_LIB_DIR "/usr/lib/${IBV_DEBIAN_ARCH}" CACHE PATH
	"Directory of the distribution's libibverbs.so.1")

# The dynamic loader's file name, which runs a program on another
# release's libc (plugin.dlopen, tests/guest/lib/release-run.sh).  It is
# the architecture's ABI (the PT_INTERP of every program built there),
# the same in each Debian release's libc6, under /usr/lib/<triplet>/
# since trixie's merged /usr.  Debian's ports without an entry here set
# the cache variable.
set(_ibv_loaders
	x86_64-linux-gnu ld-linux-x86-64.so.2
	aarch64-linux-gnu ld-linux-aarch64.so.1
	i386-linux-gnu ld-linux.so.2
	arm-linux-gnueabihf ld-linux-armhf.so.3
	arm-linux-gnueabi ld-linux.so.3
	powerpc64le-linux-gnu ld64.so.2
	s390x-linux-gnu ld64.so.1
	riscv64-linux-gnu ld-linux-riscv64-lp64d.so.1
	loongarch64-linux-gnu ld-linux-loongarch-lp64d.so.1
	mips64el-linux-gnuabi64 ld.so.1)
list(FIND _ibv_loaders "${IBV_DEBIAN_ARCH}" _i)
if(_i EQUAL -1)
	set(_loader "ld.so")
else()
	math(EXPR _i "${_i} + 1")
	list(GET _ibv_loaders ${_i} _loader)
endif()
set(IBV_RELEASE_LOADER "${_loader}" CACHE STRING
	"The dynamic loader's file name in the release's libc6")
if(_i EQUAL -1 AND IBV_RELEASE_LOADER STREQUAL "ld.so")
	message(WARNING "No dynamic loader known for ${IBV_DEBIAN_ARCH}: "
		"set IBV_RELEASE_LOADER")
endif()
unset(_ibv_loaders)
unset(_loader)
unset(_i)
set(IBV_TESTS_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(ibv_test name)
	cmake_parse_arguments(T "GUARD;OURS_ONLY;DEBIAN"
		"TIMEOUT" "COMMAND;ENV;LABELS;DEBIAN_COMMAND;PROPERTIES" ${ARGN})
	if(T_UNPARSED_ARGUMENTS OR NOT T_COMMAND)
		message(FATAL_ERROR "ibv_test(${name}): unknown arguments "
			"'${T_UNPARSED_ARGUMENTS}' or no COMMAND")
	endif()

	# Where the test lives decides its area and whether it is a guest test.
	file(RELATIVE_PATH rel "${IBV_TESTS_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
	if(rel MATCHES "^guest/([^/]+)$")
		set(guest TRUE)
		set(area "${CMAKE_MATCH_1}")
	elseif(rel MATCHES "^host/([^/]+)$")
		set(guest FALSE)
		set(area "${CMAKE_MATCH_1}")
	elseif(rel MATCHES "^([^/]+)$")
		set(guest FALSE)
		set(area "${CMAKE_MATCH_1}")
	else()
		message(FATAL_ERROR "ibv_test(${name}): not in a test area "
			"folder (${CMAKE_CURRENT_SOURCE_DIR})")
	endif()
	if(area STREQUAL "clients")
		set(area client)
	endif()
	if(NOT name MATCHES "^${area}(\\.[a-z0-9_]+)+$" OR
	   name MATCHES "\\.debian$")
		message(FATAL_ERROR "ibv_test(${name}): the name must be "
			"${area}.<name>[.<mode>] (lower case, digits, _), "
			"without .debian")
	endif()

	if(guest)
		set(labels guest ${area} ${T_LABELS})
	else()
		set(labels host ${T_LABELS})
	endif()
	if(T_GUARD)
		list(APPEND labels guard)
	endif()

	set(debian FALSE)
	if((guest AND NOT T_OURS_ONLY) OR T_DEBIAN OR T_DEBIAN_COMMAND)
		set(debian TRUE)
	endif()
	if(NOT T_DEBIAN_COMMAND)
		set(T_DEBIAN_COMMAND ${T_COMMAND})
	endif()

	set(env ${T_ENV})
	if(guest AND debian)
		list(APPEND env
			"GC_EXPECT_LIB=${CMAKE_BINARY_DIR}/lib/libibverbs.so")
	endif()
	_ibv_test_add(${name} "${labels}" "${env}" "${T_TIMEOUT}"
		"${T_PROPERTIES}" ${T_COMMAND})

	# In a build for another release than the guest's (IBV_RELEASE_RUN,
	# buildlib/release.cmake) Debian's library of that release is not
	# installed: the twin runs on it through release-run.sh, which takes
	# the release's packages from IBV_RELEASE_ROOT_DIR (run-all's phase
	# 10) and sets LD_LIBRARY_PATH and GC_EXPECT_LIB itself.
	if(debian AND guest AND IBV_RELEASE_RUN)
		list(GET T_DEBIAN_COMMAND 0 prog)
		list(REMOVE_AT T_DEBIAN_COMMAND 0)
		if(TARGET ${prog})
			set(prog "$<TARGET_FILE:${prog}>")
		endif()
		set(T_DEBIAN_COMMAND
			"${CMAKE_SOURCE_DIR}/tests/guest/lib/release-run.sh"
			"${IBV_DEBIAN_ARCH}" "${IBV_RELEASE_LOADER}" "${prog}"
			${T_DEBIAN_COMMAND})
	endif()
	if(debian)
		set(env ${T_ENV} "LD_LIBRARY_PATH=${IBV_DEBIAN_LIB_DIR}")
		if(guest)
			list(APPEND env
				"GC_EXPECT_LIB=${IBV_DEBIAN_LIB_DIR}/libibverbs.so")
		endif()
		_ibv_test_add(${name}.debian "${labels};debian" "${env}"
			"${T_TIMEOUT}" "${T_PROPERTIES}" ${T_DEBIAN_COMMAND})
	endif()
endfunction()

# One registration; a name used twice anywhere in the tree is an error.
function(_ibv_test_add name labels env timeout props)
	get_property(seen GLOBAL PROPERTY IBV_TEST_NAMES)
	if(name IN_LIST seen)
		message(FATAL_ERROR "ibv_test: the test ${name} exists already")
	endif()
	set_property(GLOBAL APPEND PROPERTY IBV_TEST_NAMES ${name})
	add_test(NAME ${name} COMMAND ${ARGN})
	set_tests_properties(${name} PROPERTIES LABELS "${labels}" ${props})
	if(timeout)
		set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout})
	endif()
	if(env)
		set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
	endif()
endfunction()
