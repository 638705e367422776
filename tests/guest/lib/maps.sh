# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Which libibverbs.so.1 did a process really run on?  Sourced by the
# in-guest test scripts (tests/guest/run-all, tests/guest/clients/*).
#
# Two ways to find out, both reading what the kernel or the dynamic loader
# did, never what the environment was meant to cause:
#
#  - A process that is still running (a server, or the caller itself):
#    /proc/PID/maps lists every file it has mapped, by its real path.
#    maps_assert_pid PID WANT.
#
#  - A short-lived client, which is gone before anyone could read its maps:
#    run it under the dynamic loader's own trace, LD_DEBUG=libs, written to
#    per-process files (LD_DEBUG_OUTPUT) so the client's stdout and stderr
#    stay untouched.  glibc's loader logs "calling init: PATH" for every
#    object it has loaded and is about to initialise, with the path it
#    opened; nothing is preloaded into the client and nothing of the
#    client changes.  trace_run DIR CMD..., then trace_assert DIR WANT.
#    (Every gcc-built shared library has DT_INIT, so the line is always
#    there; a library that is loaded but never initialised could not run
#    a single verb anyway.)
#
# WANT is "project" (the library of the build under test), "debian"
# (/usr/lib/x86_64-linux-gnu/libibverbs.so.1) or "installed" (the same
# path, where it must be this project's library from its package
# libibverbs-fork1: the bookworm root of tests/pkg).  Paths are compared
# after realpath, so the libibverbs.so.1 symlink and its target are one
# file.
#
# The project library is named by IBV_PROJECT_LIB (a path to it or to the
# directory holding it) or else by IBV_BUILD_DIR/lib/libibverbs.so.1.

IBV_DEBIAN_LIB_DIR=/usr/lib/x86_64-linux-gnu
# The reference: Debian bookworm's rdma-core.  Once this project's own
# packages are installed, /usr/lib holds our library, and every comparison
# "against Debian" would compare ours with ours; ibv_verify_debian says so.
# Its stable updates (44.0-2+deb12u1, ...) are the reference too: a
# bookworm machine, and the root of tests/pkg/make-root, get them from
# bookworm-security without anyone asking.  tests/pkg/in-guest sets it to
# the release of the root it runs in (tests/pkg/suite.sh: 56.1-1 in
# trixie's), and IBV_DEBIAN_RXE to that release's rxe plug-in (its
# provider interface's suffix: -rdmav65.so in sid's).
IBV_DEBIAN_VERSION=${IBV_DEBIAN_VERSION:-44.0-2}
IBV_DEBIAN_RXE=${IBV_DEBIAN_RXE:-$IBV_DEBIAN_LIB_DIR/libibverbs/librxe-rdmav34.so}

# _dpkg_owns PACKAGE PATH: PATH is in PACKAGE's file list (PACKAGE as
# dpkg names it, with :ARCH) and no package diverts it.  That is what
# `dpkg-query -S PATH` answering PACKAGE alone says, but for a file that
# the other architectures' instances of a Multi-Arch: same PACKAGE list as
# well.  Read from the one list: dpkg-query -S reads every package's list,
# a thousand files that a guest reads over 9p, up to 40 s a call beside
# CI's other guests.  Prints why not; 1 then.
_dpkg_owns() {
	local pkg=$1 path=$2 div list=/var/lib/dpkg/info/$1.list
	# Only a Multi-Arch: same package's files carry the :ARCH.
	[[ -f $list ]] || list=/var/lib/dpkg/info/${pkg%:*}.list
	if ! grep -qxF -- "$path" "$list" 2>/dev/null; then
		echo "$path is not in $pkg's file list"
		return 1
	fi
	if ! div=$(dpkg-divert --listpackage "$path" 2>/dev/null); then
		echo "dpkg-divert --listpackage $path failed"
		return 1
	fi
	if [[ -n $div ]]; then
		echo "$path is diverted by $div"
		return 1
	fi
}

# _debian_file PACKAGE PATH: PATH is a file of Debian's PACKAGE at
# IBV_DEBIAN_VERSION, unmodified (dpkg's own md5sums of the package).
_debian_file() {
	local pkg=$1:amd64 path=$2 real ver why want got
	ver=$(dpkg-query -W -f='${Version} ${db:Status-Abbrev}' "$pkg" \
		2>/dev/null) || ver="not installed"
	if [[ ! $ver =~ ^${IBV_DEBIAN_VERSION//./\\.}(\+deb[0-9]+u[0-9]+)?\ ii\ $ ]]; then
		echo "REFERENCE: $pkg is '${ver% }', not Debian's $IBV_DEBIAN_VERSION"
		return 1
	fi
	ver=${ver%% *}
	if ! real=$(realpath -e "$path" 2>/dev/null); then
		echo "REFERENCE: $path does not exist"
		return 1
	fi
	if ! why=$(_dpkg_owns "$pkg" "$real"); then
		echo "REFERENCE: $why"
		return 1
	fi
	want=$(awk -v f="${real#/}" '$2 == f { print $1 }' \
		"/var/lib/dpkg/info/$pkg.md5sums" 2>/dev/null)
	got=$(md5sum <"$real" | cut -d' ' -f1)
	if [[ -z $want || $want != "$got" ]]; then
		echo "REFERENCE: $real has md5 $got, $pkg $ver ships '${want:-nothing}'"
		return 1
	fi
	echo "$real ($pkg $ver, md5 $got)"
}

# Prove that the reference library and its rxe provider are Debian's
# rdma-core $IBV_DEBIAN_VERSION as shipped.  Prints one line; 0 if so.
ibv_verify_debian() {
	local lib rxe bad
	lib=$(_debian_file libibverbs1 "$IBV_DEBIAN_LIB_DIR/libibverbs.so.1") ||
		{ echo "$lib"; return 1; }
	rxe=$(_debian_file ibverbs-providers "$IBV_DEBIAN_RXE") ||
		{ echo "$rxe"; return 1; }
	bad=$(dpkg --verify libibverbs1 ibverbs-providers 2>&1)
	if [[ -n $bad ]]; then
		echo "REFERENCE: dpkg --verify: ${bad//$'\n'/; }"
		return 1
	fi
	echo "reference: $lib; $rxe"
}

# The file PATH resolves to belongs to our package libibverbs-fork1.
_ours_installed() { # PATH
	local real why owner
	real=$(realpath -e "$1" 2>/dev/null) || {
		echo "maps.sh: $1 does not exist" >&2
		return 1
	}
	why=$(_dpkg_owns libibverbs-fork1:amd64 "$real") || {
		# Name the owner; slow, but only on this way out.
		owner=$(dpkg-query -S "$real" 2>/dev/null)
		echo "maps.sh: $real is not from libibverbs-fork1 (${owner:-$why})" >&2
		return 1
	}
}

# Real paths resolved once, kept for the shell and its subshells: in a
# guest under TCG every process started costs a tenth of a second, and
# up to a second beside CI's other guests, and the client tests resolved
# the same two libraries a few hundred times (ibv_maps_prime).
declare -gA _ibv_real=()

# Print PATH's real path, as realpath -e does; 1 if it does not exist.
_ibv_realpath() { # PATH
	if [[ -n ${_ibv_real[$1]:-} ]]; then
		printf '%s\n' "${_ibv_real[$1]}"
		return 0
	fi
	realpath -e "$1" 2>/dev/null
}

# Resolve the project's and Debian's library once in the calling shell,
# under each name a loader trace shows for them (the path named, its
# target, and the soname in the target's directory, which LD_LIBRARY_PATH
# names: each resolved, never assumed), for _ibv_realpath.  The cache
# holds while no link changes; call it again after changing
# IBV_PROJECT_LIB or IBV_BUILD_DIR.
ibv_maps_prime() {
	local want p real name
	_ibv_real=()
	for want in project debian; do
		p=$(_ibv_lib_file "$want" 2>/dev/null) || continue
		real=$(realpath -e "$p" 2>/dev/null) || continue
		_ibv_real[$p]=$real
		_ibv_real[$real]=$real
		name=${real%/*}/libibverbs.so.1
		real=$(realpath -e "$name" 2>/dev/null) || continue
		_ibv_real[$name]=$real
	done
}

# Print the real path of the library WANT stands for.
ibv_lib_path() { # WANT
	local p
	p=$(_ibv_lib_file "$1") || return
	_ibv_realpath "$p"
}

# The path (not resolved) of the library WANT stands for.
_ibv_lib_file() { # WANT
	local p
	case $1 in
	project)
		if [[ -n ${IBV_PROJECT_LIB:-} ]]; then
			p=$IBV_PROJECT_LIB
			[[ ! -d $p ]] || p=$p/libibverbs.so.1
		elif [[ -n ${IBV_BUILD_DIR:-} ]]; then
			p=$IBV_BUILD_DIR/lib/libibverbs.so.1
		else
			echo "maps.sh: set IBV_PROJECT_LIB or IBV_BUILD_DIR" >&2
			return 2
		fi
		;;
	debian) p=$IBV_DEBIAN_LIB_DIR/libibverbs.so.1 ;;
	installed)
		p=$IBV_DEBIAN_LIB_DIR/libibverbs.so.1
		_ours_installed "$p" || return 2
		;;
	*)
		echo "maps.sh: WANT must be project, debian or installed, not '$1'" >&2
		return 2
		;;
	esac
	if [[ ! -e $p ]]; then
		echo "maps.sh: $1 library $p does not exist" >&2
		return 2
	fi
	printf '%s\n' "$p"
}

# The library's directory, for LD_LIBRARY_PATH.
ibv_lib_dir() { # WANT
	local p
	p=$(ibv_lib_path "$1") || return
	printf '%s\n' "${p%/*}"
}

# Check a set of libibverbs paths (one per line on stdin) against WANT.
# Prints a one-line verdict; returns 0 when exactly WANT was loaded.
_judge_paths() { # WANT WHAT
	local want=$1 what=$2 expect other line ok=1 seen=0 real
	expect=$(ibv_lib_path "$want") || return 2
	case $want in
	project) other=$(ibv_lib_path debian 2>/dev/null) || other= ;;
	debian) other=$(ibv_lib_path project 2>/dev/null) || other= ;;
	*) other= ;;
	esac
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		real=$(_ibv_realpath "$line") || real=$line
		if [[ $real == "$expect" ]]; then
			seen=1
		else
			ok=0
			if [[ -n $other && $real == "$other" ]]; then
				echo "MAPPING: $what loaded the $( [[ $want == project ]] && echo Debian || echo project) library $real instead of $expect"
			else
				echo "MAPPING: $what loaded an unexpected $real (want $expect)"
			fi
		fi
	done
	if ((!seen)); then
		echo "MAPPING: $what did not load $expect"
		return 1
	fi
	((ok)) || return 1
	echo "mapping: $what ran on $expect"
}

# Assert that the running process PID has mapped WANT's library and no
# other libibverbs.  (Not "self": in a shell that is the reader itself.)
maps_assert_pid() { # PID WANT
	local pid=$1 want=$2 maps
	if ! maps=$(<"/proc/$pid/maps"); then
		echo "MAPPING: cannot read /proc/$pid/maps"
		return 1
	fi
	awk 'NF >= 6 { n = split($6, p, "/"); if (p[n] ~ /^libibverbs\.so/) print $6 }' \
		<<<"$maps" | sort -u | _judge_paths "$want" "pid $pid"
}

# Run CMD ARGS... with the loader's trace going to DIR/ld.PID files.  Its
# stdout, stderr and exit status are CMD's own.
trace_run() { # DIR CMD...
	local dir=$1
	shift
	mkdir -p "$dir"
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$dir/ld" "$@"
}

# The libibverbs paths initialised by the processes traced into DIR, one
# per process and path, as "PID PATH".  (No loop whose last test decides
# the status: callers run with pipefail, and an empty trace is no error.)
trace_loaded() { # DIR
	local files=("$1"/ld.*)
	[[ -e ${files[0]} ]] || return 0
	sed -n 's/^ *\([0-9]*\):[[:space:]]*calling init: \(.*\)$/\1 \2/p' \
		"${files[@]}" |
		awk '{ path = $0; sub(/^[0-9]+ /, "", path); n = split(path, p, "/");
		       if (p[n] ~ /^libibverbs\.so/) print }'
}

# Assert that every traced process that loaded a libibverbs loaded WANT's
# and nothing else, and that at least one did.
trace_assert() { # DIR WANT [WHAT]
	local dir=$1 want=$2 what=${3:-the traced command}
	trace_loaded "$dir" | awk '{ $1 = ""; sub(/^ /, ""); print }' |
		_judge_paths "$want" "$what"
}

# Assert that no traced process in DIR loaded WANT's library (used to show
# that a run against one library never touched the other).
trace_assert_none() { # DIR WANT [WHAT]
	local dir=$1 want=$2 what=${3:-the traced processes} expect pid path real
	local bad=0 loaded
	expect=$(ibv_lib_path "$want") || return 2
	loaded=$(trace_loaded "$dir")
	while read -r pid path; do
		[[ -n $pid ]] || continue
		real=$(_ibv_realpath "$path") || real=$path
		if [[ $real == "$expect" ]]; then
			echo "MAPPING: pid $pid loaded $real"
			bad=1
		fi
	done <<<"$loaded"
	((!bad)) || return 1
	echo "mapping: $what: no process loaded $expect"
}
