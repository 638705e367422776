# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Helpers for the client tests in tests/guest/clients/: run a program on
# the project's libibverbs or on Debian's, capture what it printed, prove
# which library it ran on (maps.sh) and compare runs.  Each check prints
# "ok - ..." or "not ok - ..."; client_finish prints "N passed, M failed"
# and exits non-zero if anything failed.
#
#   source lib/client.sh; client_init PROJECT_LIB_FILE
#   client_run project ours /usr/bin/ibv_devinfo -v
#   client_run debian  deb  /usr/bin/ibv_devinfo -v
#   client_same ours deb "ibv_devinfo -v"
#   client_finish

_client_lib_dir=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/guest/lib/maps.sh
source "$_client_lib_dir/maps.sh"

client_passed=0
client_failed=0
client_reference=

client_init() { # PROJECT_LIB_FILE
	[[ -n ${1:-} ]] || {
		echo "usage: $0 PATH/TO/libibverbs.so.1"
		exit 2
	}
	IBV_PROJECT_LIB=$1
	export IBV_PROJECT_LIB
	if ! ibv_lib_path project >/dev/null; then
		echo "not ok - the project library $1 is missing; build it first"
		exit 1
	fi
	client_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibv-client.XXXXXX")
	trap 'rm -rf "$client_tmp"' EXIT
}

ok() {
	echo "ok - $*"
	client_passed=$((client_passed + 1))
}

not_ok() {
	echo "not ok - $*"
	client_failed=$((client_failed + 1))
}

# client_run WANT TAG CMD [ARGS...]
# Runs CMD on WANT's library (project: LD_LIBRARY_PATH names the build's
# lib directory; debian: it names Debian's, which also beats the RUNPATH
# of our own binaries).  Saves TAG.out, TAG.err, TAG.rc under the temp
# dir and checks through the loader's trace that CMD really ran on WANT.
client_run() {
	local want=$1 tag=$2 dir rc=0
	shift 2
	# Debian's is the reference only if it is Debian's 44.0-2 (maps.sh).
	if [[ $want == debian && -z $client_reference ]]; then
		if client_reference=$(ibv_verify_debian); then
			ok "$client_reference"
		else
			not_ok "$client_reference"
			client_reference=
			return 1
		fi
	fi
	dir=$(ibv_lib_dir "$want") || {
		not_ok "$tag: no $want library"
		return 1
	}
	rm -rf "$client_tmp/$tag.ld"
	LD_LIBRARY_PATH=$dir trace_run "$client_tmp/$tag.ld" "$@" \
		>"$client_tmp/$tag.out" 2>"$client_tmp/$tag.err" || rc=$?
	echo "$rc" >"$client_tmp/$tag.rc"
	local verdict
	if verdict=$(trace_assert "$client_tmp/$tag.ld" "$want" \
		"'$*' ($tag)"); then
		ok "$verdict"
	else
		not_ok "$verdict"
		return 1
	fi
}

client_out() { cat "$client_tmp/$1.out"; }
client_rc() { cat "$client_tmp/$1.rc"; }

# Show what a run printed, indented, for a failure's context.
client_show() { # TAG
	local f
	for f in out err; do
		[[ -s $client_tmp/$1.$f ]] || continue
		echo "    --- $1 std$f:"
		sed 's/^/    /' "$client_tmp/$1.$f"
	done
	echo "    --- $1 exit status $(client_rc "$1")"
}

# client_expect_rc TAG RC WHAT
client_expect_rc() {
	local rc
	rc=$(client_rc "$1")
	if [[ $rc == "$2" ]]; then
		ok "$3: exit status $rc"
	else
		not_ok "$3: exit status $rc, want $2"
		client_show "$1"
	fi
}

# client_grep TAG REGEX WHAT: an extended regex must match a stdout line.
client_grep() {
	if grep -Eq -- "$2" "$client_tmp/$1.out"; then
		ok "$3"
	else
		not_ok "$3: no line matching /$2/"
		client_show "$1"
	fi
}

# client_same TAG1 TAG2 WHAT: stdout, stderr and exit status identical.
client_same() {
	local a=$1 b=$2 what=$3 f bad=0
	for f in out err rc; do
		if ! cmp -s "$client_tmp/$a.$f" "$client_tmp/$b.$f"; then
			bad=1
			echo "    --- difference in ${f/rc/exit status} ($a vs $b):"
			diff -u --label "$a" --label "$b" \
				"$client_tmp/$a.$f" "$client_tmp/$b.$f" |
				sed 's/^/    /'
		fi
	done
	if ((bad)); then
		not_ok "$what: $a and $b differ (diff above)"
	else
		ok "$what: $a and $b identical ($(wc -l <"$client_tmp/$a.out") lines, exit status $(client_rc "$a"))"
	fi
}

client_finish() {
	echo "$client_passed passed, $client_failed failed"
	((client_failed == 0))
	exit
}
